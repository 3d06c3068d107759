import { EgressProxyPool, type FileOwner } from '@caravel/sandbox';
import { dirname, join, resolve } from 'node:path';
import type { SandboxBrokerConfig } from '../sandbox-broker.config.js';
import type { GitHubGit } from './github-git.js';

/**
 * The egress proxies of the broker's bwrap sandboxes (egress mode `proxy`): one per sandbox,
 * scoped to its thread's repository on the configured GitHub, passing the allowlist through. Null
 * when sandboxes get no network at all (`none`, or a provider without the proxy bridge).
 */
export function sandboxEgressPool(
  config: Pick<SandboxBrokerConfig, 'sandbox' | 'egress'>,
  github: GitHubGit,
  socketOwner: FileOwner | undefined,
): EgressProxyPool | null {
  // Pods reach their proxies through the broker's relay, which needs the URL they are given.
  const proxied =
    config.sandbox.provider === 'bwrap' ||
    (config.sandbox.provider === 'kubernetes' && config.sandbox.kubernetes?.proxyUrl !== undefined);
  if (!proxied || config.egress.mode !== 'proxy') return null;
  const root = resolve(config.sandbox.root);
  return new EgressProxyPool({
    dir: resolve(config.egress.dir ?? join(dirname(root), 'sandbox-egress')),
    github: github.endpoints(),
    allowlist: [...config.egress.allowlist],
    upstreamOverrides: { ...config.egress.mirrors },
    tokenSource: (repository) => github.sandboxTokenSource(repository),
    ...(socketOwner ? { socketOwner } : {}),
  });
}
