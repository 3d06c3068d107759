import { sandboxError } from '../sandbox.errors.js';
import { assertBinds, type SandboxBind } from '../providers/bwrap-binds.js';
import { SWE_AGENT_PATHS } from './bundle-install.js';

const REPO_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** `/<repo>`, the path SWE-agent's sandbox keeps the repository at. */
export function sweRepoDir(repoName: string): string {
  if (!REPO_NAME.test(repoName)) {
    throw sandboxError('invalid_input', `'${repoName}' is not a repository folder name`);
  }
  return `/${repoName}`;
}

/**
 * The binds that give a bwrap sandbox SWE-agent's layout: the workspace again at `/<repo>`
 * (when the trajectory names one), the sandbox's home at `/root` (where SWE-agent's tools write
 * `model.patch`, `state.json` and the registry), and the staged bundles read-only at
 * `/root/tools`.
 * @throws AppError BAD_REQUEST when the repository's name would cover the sandbox's own layout.
 */
export function sweAgentBinds(options: {
  repoName: string | null;
  stagedTools: string;
}): SandboxBind[] {
  const binds: SandboxBind[] = [
    ...(options.repoName === null
      ? []
      : [{ path: sweRepoDir(options.repoName), of: 'workspace' as const }]),
    { path: SWE_AGENT_PATHS.home, of: 'home' },
    { path: SWE_AGENT_PATHS.tools, hostDir: options.stagedTools },
  ];
  assertBinds(binds);
  return binds;
}
