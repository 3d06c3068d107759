import {
  GithubPrSource,
  isRepoName,
  loadSkipList,
  parseResumeFrom,
  runFarm,
  swegenError,
  type FarmResult,
} from '@caravel/swegen';
import { resolve } from 'node:path';
import { createSettings, type SwegenGenerationOptions } from './create.command.js';
import { publishConfig, type SwegenPublishOptions } from './publish.options.js';
import type { SwegenEnv } from './swegen.config.js';

/** The parsed options of `caravel swegen farm`. */
export interface SwegenFarmOptions extends SwegenGenerationOptions {
  readonly repo: string;
  readonly resumeFrom?: string;
  readonly skipList?: string;
  readonly dryRun: boolean;
  readonly reset: boolean;
  readonly maxPrs?: number;
  readonly taskDelaySeconds: number;
  /** A PR whose generation takes longer is abandoned (recorded as timed out); 0: no limit. */
  readonly timeoutSeconds?: number;
  readonly perPage?: number;
  readonly publish?: SwegenPublishOptions;
  readonly shouldStop: () => boolean;
  readonly write: (line: string) => void;
}

/** `caravel swegen farm`: a repository's merged PRs to tasks, resumable, optionally published. */
export async function swegenFarm(options: SwegenFarmOptions, env: SwegenEnv): Promise<FarmResult> {
  if (!isRepoName(options.repo))
    throw swegenError('invalid_input', `farm needs owner/repo, not '${options.repo}'`);
  const create = await createSettings(options, env);
  const stateDir = resolve(options.stateDir);
  const token = env.GITHUB_TOKEN ?? env.GH_TOKEN;
  const source = new GithubPrSource({
    ...(token ? { token } : {}),
    ...(env.GITHUB_API_URL ? { apiUrl: env.GITHUB_API_URL } : {}),
  });
  const publish = publishConfig(options.publish, env);
  return runFarm({
    repo: options.repo,
    source,
    stateDir,
    tasksDir: resolve(options.tasksDir),
    create,
    minFiles: options.minSourceFiles,
    dryRun: options.dryRun,
    reset: options.reset,
    taskDelayMs: options.taskDelaySeconds * 1000,
    ...(options.timeoutSeconds ? { timeoutMs: options.timeoutSeconds * 1000 } : {}),
    shouldStop: options.shouldStop,
    log: options.write,
    ...(options.perPage ? { perPage: options.perPage } : {}),
    ...(options.maxPrs !== undefined ? { maxPrs: options.maxPrs } : {}),
    ...(options.resumeFrom ? { resumeFrom: parseResumeFrom(options.resumeFrom) } : {}),
    ...(options.skipList ? { skipTaskIds: await loadSkipList(options.skipList) } : {}),
    ...(publish ? { publish } : {}),
  });
}
