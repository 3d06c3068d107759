import { isRepoName, swegenError, type PublishConfig } from '@caravel/swegen';
import { resolve } from 'node:path';
import type { SwegenEnv } from './swegen.config.js';

/** Publishing options as the CLI reads them (`--publish-*`, `--cleanup-local`). */
export interface SwegenPublishOptions {
  readonly repo: string;
  readonly path?: string;
  readonly base?: string;
  readonly branchPrefix?: string;
  readonly stateBranchPrefix?: string;
  readonly statePath?: string;
  readonly cloneDir?: string;
  readonly dryRun: boolean;
  readonly cleanupLocal: boolean;
}

/** The publish configuration: the write token is `GIT_TOKEN`, else `GITHUB_TOKEN`. */
export function publishConfig(
  options: SwegenPublishOptions | undefined,
  env: SwegenEnv,
): PublishConfig | undefined {
  if (!options) return undefined;
  if (!isRepoName(options.repo))
    throw swegenError('invalid_input', `--publish-repo must be owner/repo, not '${options.repo}'`);
  const token = env.GIT_TOKEN ?? env.GITHUB_TOKEN ?? env.GH_TOKEN;
  if (!token)
    throw swegenError('publish_auth_error', 'publishing needs GIT_TOKEN (or GITHUB_TOKEN)');
  return {
    repo: options.repo,
    token,
    ...(env.GITHUB_API_URL ? { apiUrl: env.GITHUB_API_URL } : {}),
    ...(options.path ? { tasksPath: options.path } : {}),
    ...(options.base ? { baseBranch: options.base } : {}),
    ...(options.branchPrefix ? { branchPrefix: options.branchPrefix } : {}),
    ...(options.stateBranchPrefix ? { stateBranchPrefix: options.stateBranchPrefix } : {}),
    ...(options.statePath ? { statePath: options.statePath } : {}),
    ...(options.cloneDir ? { cloneDir: resolve(options.cloneDir) } : {}),
    dryRun: options.dryRun,
    cleanupLocal: options.cleanupLocal,
  };
}
