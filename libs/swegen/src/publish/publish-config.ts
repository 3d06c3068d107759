import { join } from 'node:path';
import { GitRunner } from '../git/git-runner.js';

/** Where and how tasks and farm state are published (absent: publishing is off). */
export interface PublishConfig {
  /** The dataset repository, `owner/repo`. */
  readonly repo: string;
  /** The write token (`GIT_TOKEN`, else `GITHUB_TOKEN`). */
  readonly token: string;
  /** The REST API root (default https://api.github.com). */
  readonly apiUrl?: string;
  /** Git's base URL (default: derived from `apiUrl`, https://github.com for github.com). */
  readonly gitUrl?: string;
  readonly tasksPath?: string;
  readonly baseBranch?: string;
  readonly branchPrefix?: string;
  readonly stateBranchPrefix?: string;
  readonly statePath?: string;
  /** The dataset clone (default `<stateDir>/publish/<dataset slug>/<source slug>`). */
  readonly cloneDir?: string;
  /** Clone, branch and commit locally; never push or open a PR. */
  readonly dryRun?: boolean;
  /** Delete each local task once it is durably published. */
  readonly cleanupLocal?: boolean;
  readonly authorName?: string;
  readonly authorEmail?: string;
}

/** A {@link PublishConfig} with every default applied. */
export type ResolvedPublishConfig = Required<Omit<PublishConfig, 'apiUrl'>> & {
  readonly apiUrl: string;
};

/** `owner/repo` -> `owner__repo` (not lowercased, as the reference names state files). */
export const repoSlug = (repo: string): string => repo.replace('/', '__');

/** Git's base URL for an API root: github.com's, or a GitHub Enterprise/fake host without `/api/v3`. */
export function gitUrlFor(apiUrl: string): string {
  const root = apiUrl.replace(/\/+$/, '');
  if (root === 'https://api.github.com') return 'https://github.com';
  return root.replace(/\/api\/v3$/, '');
}

/** Applies the defaults; `sourceRepo` and `stateDir` place the clone. */
export function resolvePublishConfig(
  config: PublishConfig,
  sourceRepo: string,
  stateDir: string,
): ResolvedPublishConfig {
  const apiUrl = (config.apiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
  return {
    repo: config.repo,
    token: config.token,
    apiUrl,
    gitUrl: (config.gitUrl ?? gitUrlFor(apiUrl)).replace(/\/+$/, ''),
    tasksPath: config.tasksPath ?? 'tasks',
    baseBranch: config.baseBranch ?? 'main',
    branchPrefix: config.branchPrefix ?? 'task/',
    stateBranchPrefix: config.stateBranchPrefix ?? 'farm-state/',
    statePath: config.statePath ?? 'state',
    cloneDir:
      config.cloneDir ?? join(stateDir, 'publish', repoSlug(config.repo), repoSlug(sourceRepo)),
    dryRun: config.dryRun ?? false,
    cleanupLocal: config.cleanupLocal ?? false,
    authorName: config.authorName ?? 'caravel-swegen',
    authorEmail: config.authorEmail ?? 'swegen@caravel.invalid',
  };
}

/** The dataset repository's clone URL. */
export const datasetCloneUrl = (config: ResolvedPublishConfig): string =>
  `${config.gitUrl}/${config.repo}.git`;

/**
 * Git in `dir` with the token sent per invocation as an `http.extraheader` (it never reaches
 * `.git/config` and never appears in an error message) and the publisher's identity.
 */
export function publishGit(config: ResolvedPublishConfig, dir: string): GitRunner {
  const basic = Buffer.from(`x-access-token:${config.token}`).toString('base64');
  return new GitRunner(dir, 'git', {
    hiddenArgs: [
      '-c',
      `http.extraheader=AUTHORIZATION: Basic ${basic}`,
      '-c',
      `user.name=${config.authorName}`,
      '-c',
      `user.email=${config.authorEmail}`,
    ],
  });
}
