import type { WebPort, WebSearchProvider } from '@caravel/tools';
import { HostAllowlist } from './host-allowlist.js';
import { HostWeb } from './host-web.js';
import { SafeHttpClient } from './safe-http-client.js';
import { TavilySearch } from './tavily-search.js';

/** What the agent's web tools are built with (the typed slice of the web settings). */
export interface WebPortsConfig {
  /** Internal hosts the tools may reach despite private addresses (names, IPs, `*.domain`). */
  allowedHosts: HostAllowlist;
  /** Longest request, redirects and body included. */
  timeoutMs: number;
  /** Bytes of a (decompressed) response body read; the rest is cut. */
  maxResponseBytes: number;
  /** Characters of a response the model reads from `http_request` and `fetch_url`. */
  maxTextChars: number;
  /** Tavily, behind `web_search`; without a key the tool answers with a coded error. */
  tavily: { apiKey?: string; apiUrl: string };
}

/**
 * The web ports of the agent's channel tools: `http_request` and `fetch_url` through the
 * SSRF-guarded client, `web_search` through Tavily (without its API key it answers with a coded
 * error naming the setting).
 */
export function webPorts(config: WebPortsConfig): { web: WebPort; webSearch: WebSearchProvider } {
  const http = new SafeHttpClient({
    allowlist: config.allowedHosts,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
  });
  return {
    web: new HostWeb(http, config.maxTextChars),
    webSearch: new TavilySearch({
      apiKey: config.tavily.apiKey,
      apiUrl: config.tavily.apiUrl,
      timeoutMs: config.timeoutMs,
    }),
  };
}
