import {
  analyzeTask,
  repoCachePath,
  swegenError,
  type AnalyzedTrial,
  type TaskAnalysis,
} from '@caravel/swegen';
import { access, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { requiredModelRef, sandboxProvider, swegenChatModel } from './create.command.js';
import { buildEgressOf, type SwegenEnv } from './swegen.config.js';

/** The parsed options of `caravel swegen analyze`. */
export interface SwegenAnalyzeOptions {
  readonly task: string;
  readonly repoPath?: string;
  readonly stateDir: string;
  /** The agent's model (default CARAVEL_MODEL). */
  readonly model?: string;
  /** The classifier's model (default: the agent's). */
  readonly analysisModel?: string;
  readonly sandbox: 'bwrap' | 'local';
  readonly trials: number;
  readonly concurrency: number;
  readonly classify: boolean;
  readonly maxModelCalls?: number;
  readonly write: (line: string) => void;
}

/** `--repo-path`, else the repo cache of the task's `source_repo` (task.toml). */
async function repoFor(options: SwegenAnalyzeOptions, stateDir: string): Promise<string> {
  if (options.repoPath) return resolve(options.repoPath);
  const toml = await readFile(join(options.task, 'task.toml'), 'utf8').catch(() => '');
  const repo = /^source_repo\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const cached = repo ? repoCachePath(stateDir, repo) : undefined;
  if (
    cached &&
    (await access(join(cached, '.git')).then(
      () => true,
      () => false,
    ))
  )
    return cached;
  throw swegenError(
    'invalid_input',
    `no local clone for ${options.task}: pass --repo-path (the environment is built from a local clone)`,
  );
}

/** One progress line: `[trial i/k] reward=R class: reason`. */
export function trialLine(trial: AnalyzedTrial, total: number): string {
  const reward =
    trial.reward === null ? `none (${trial.rewardError ?? 'no reward'})` : trial.reward;
  const judged = trial.classification
    ? `${trial.classification.classification}: ${trial.classification.reason}`
    : trial.classificationError
      ? `unclassified (${trial.classificationError})`
      : 'unclassified';
  return `[trial ${trial.trial}/${total}] reward=${reward} ${judged}`;
}

/** `caravel swegen analyze`: N agent trials on a task, each classified, then the task's verdict. */
export async function swegenAnalyze(
  options: SwegenAnalyzeOptions,
  env: SwegenEnv,
): Promise<TaskAnalysis> {
  const stateDir = resolve(options.stateDir);
  const model = swegenChatModel(requiredModelRef(options, env), env);
  const { provider, rootDir } = await sandboxProvider(options, stateDir);
  const analysis = await analyzeTask(resolve(options.task), {
    repoPath: await repoFor(options, stateDir),
    stateDir,
    trials: options.trials,
    concurrency: options.concurrency,
    model,
    ...(options.classify
      ? { classifier: options.analysisModel ? swegenChatModel(options.analysisModel, env) : model }
      : {}),
    provider,
    hostWorkspace: (id) => join(rootDir, id, 'workspace'),
    egress: buildEgressOf(env),
    ...(options.maxModelCalls ? { maxModelCalls: options.maxModelCalls } : {}),
    onTrial: (trial) => options.write(trialLine(trial, options.trials)),
  });
  const { verdict } = analysis;
  if (analysis.environmentError) options.write(`environment: ${analysis.environmentError}`);
  options.write(
    `verdict: ${verdict.verdict} (${verdict.keep ? 'keep' : 'drop'}): ${verdict.reasons.join('; ')}`,
  );
  options.write(`analysis: ${join(resolve(options.task), 'analysis.json')}`);
  return analysis;
}
