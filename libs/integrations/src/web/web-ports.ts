import type { WebPort, WebSearchProvider } from '@caravel/tools';
import type { WebSettings } from '../settings/integration.settings.js';
import { HostAllowlist } from './host-allowlist.js';
import { HostWeb } from './host-web.js';
import { SafeHttpClient } from './safe-http-client.js';
import { TavilySearch } from './tavily-search.js';

/**
 * The web ports of the agent's channel tools from the web settings: `http_request` and
 * `fetch_url` through the SSRF-guarded client, `web_search` through Tavily (without
 * `TAVILY_API_KEY` it answers with a coded error naming the setting).
 */
export function webPorts(settings: WebSettings): { web: WebPort; webSearch: WebSearchProvider } {
  const http = new SafeHttpClient({
    allowlist: HostAllowlist.parse(settings.WEB_ALLOWED_HOSTS),
    timeoutMs: settings.WEB_TIMEOUT_MS,
    maxResponseBytes: settings.WEB_MAX_RESPONSE_BYTES,
  });
  return {
    web: new HostWeb(http, settings.WEB_MAX_TEXT_CHARS),
    webSearch: new TavilySearch({
      apiKey: settings.TAVILY_API_KEY,
      apiUrl: settings.TAVILY_API_URL,
      timeoutMs: settings.WEB_TIMEOUT_MS,
    }),
  };
}
