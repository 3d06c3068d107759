import { DEFAULT_EGRESS_PORT, sandboxEgressEnvironment } from '../../proxy/sandbox-egress.js';
import type { SandboxEgressSettings } from '../../proxy/sandbox-egress.js';

/** How a sandbox pod reaches the broker's credential proxy. */
export interface KubernetesEgress extends Omit<SandboxEgressSettings, 'port'> {
  /**
   * The proxy as pods reach it, e.g. `http://caravel-sandbox-broker-egress.caravel.svc:3128`
   * (the broker's egress relay; the chart's NetworkPolicy lets sandbox pods reach nothing else).
   */
  readonly proxyUrl: string;
}

/**
 * The proxy environment of a sandbox pod: the same settings as a bwrap or docker sandbox gets
 * (`sandboxEgressEnvironment`: proxy variables, git's rewrite to plain http and its placeholder
 * credential helper), pointed at the broker's relay instead of the sandbox's own loopback. No
 * credential: the proxy adds it.
 */
export function kubernetesEgressEnvironment(egress: KubernetesEgress): Record<string, string> {
  const local = `http://127.0.0.1:${DEFAULT_EGRESS_PORT}`;
  const proxy = egress.proxyUrl.replace(/\/+$/, '');
  const env = sandboxEgressEnvironment({ gitHost: egress.gitHost, apiHost: egress.apiHost });
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value === local ? proxy : value]),
  );
}
