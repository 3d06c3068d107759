import { EgressProxyPool, type FileOwner } from '@caravel/sandbox';
import { dirname, join, resolve } from 'node:path';
import type { SandboxBrokerSettings } from '../sandbox-broker.settings.js';
import type { GitHubGit } from './github-git.js';

/**
 * The egress proxies of the broker's bwrap sandboxes (`SANDBOX_EGRESS=proxy`): one per sandbox,
 * scoped to its thread's repository on the configured GitHub, passing the allowlist through. Null
 * when sandboxes get no network at all (`none`, or a provider without the proxy bridge).
 */
export function sandboxEgressPool(
  settings: SandboxBrokerSettings,
  github: GitHubGit,
  socketOwner: FileOwner | undefined,
): EgressProxyPool | null {
  if (settings.SANDBOX_PROVIDER !== 'bwrap' || settings.SANDBOX_EGRESS !== 'proxy') return null;
  const root = resolve(settings.SANDBOX_ROOT);
  return new EgressProxyPool({
    dir: resolve(settings.SANDBOX_EGRESS_DIR ?? join(dirname(root), 'sandbox-egress')),
    github: github.endpoints(),
    allowlist: settings.SANDBOX_EGRESS_ALLOWLIST,
    upstreamOverrides: settings.SANDBOX_EGRESS_MIRRORS,
    tokenSource: (repository) => github.sandboxTokenSource(repository),
    ...(socketOwner ? { socketOwner } : {}),
  });
}
