import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { isAppError } from '@caravel/errors';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { swegenError } from '../errors/swegen-errors.js';
import type { BuildEgressOptions } from '../validate/build-egress.js';
import { buildOnHost, type BuiltEnvironment } from '../validate/host-build.js';
import { readTaskTimeouts, type TaskTimeouts } from '../validate/task-config.js';
import {
  runAgentTrial,
  testFilesAmong,
  testOutputTail,
  type AgentTrialSettings,
} from './agent-trial.js';
import { taskVerdict, type TaskVerdict } from './task-verdict.js';
import { classifyTrial, type TrialClassification } from './trial-classifier.js';

/** Settings of `analyzeTask`. */
export interface AnalyzeOptions extends AgentTrialSettings {
  /** A local clone holding the task's head commit (the environment is built from it). */
  readonly repoPath: string;
  /** The swegen state directory: trial logs go to `<stateDir>/jobs/<task>/analyze/`. */
  readonly stateDir: string;
  /** Trials to run (`-k`). */
  readonly trials: number;
  /** Trials at once (`-n`). */
  readonly concurrency: number;
  /** The classification model; absent: trials are judged by their reward alone. */
  readonly classifier?: BaseChatModel;
  /** Called as each trial is classified (progress). */
  readonly onTrial?: (trial: AnalyzedTrial) => void;
  readonly now?: () => Date;
  /** What the environment's build steps reach (default: the package registries, see `buildOnHost`). */
  readonly egress?: BuildEgressOptions;
}

/** One trial of the analysis. */
export interface AnalyzedTrial {
  /** 1-based. */
  readonly trial: number;
  readonly reward: number | null;
  readonly rewardError?: string;
  readonly agentError?: string;
  readonly classification?: TrialClassification;
  readonly classificationError?: string;
  readonly changedFiles: readonly string[];
  readonly testFilesTouched: readonly string[];
  readonly logDir: string;
}

/** What `analysis.json` holds. */
export interface TaskAnalysis {
  readonly taskId: string;
  readonly analyzedAt: string;
  readonly environmentError?: string;
  readonly trials: readonly AnalyzedTrial[];
  readonly verdict: TaskVerdict;
}

interface TaskFacts {
  readonly taskDir: string;
  readonly taskId: string;
  readonly instruction: string;
  readonly referenceFix: string;
  readonly timeouts: TaskTimeouts;
}

async function readFacts(taskDir: string): Promise<TaskFacts> {
  const instruction = await readFile(join(taskDir, 'instruction.md'), 'utf8').catch(() => {
    throw swegenError('invalid_input', `${taskDir} has no instruction.md: not a task`);
  });
  return {
    taskDir,
    taskId: basename(taskDir),
    instruction,
    referenceFix: await readFile(join(taskDir, 'solution', 'fix.patch'), 'utf8').catch(() => ''),
    timeouts: await readTaskTimeouts(taskDir),
  };
}

async function classify(
  options: AnalyzeOptions,
  facts: TaskFacts,
  run: Awaited<ReturnType<typeof runAgentTrial>>,
): Promise<Pick<AnalyzedTrial, 'classification' | 'classificationError'>> {
  if (!options.classifier) return {};
  try {
    const classification = await classifyTrial(options.classifier, {
      instruction: facts.instruction,
      reward: run.reward,
      ...(run.rewardError ? { rewardError: run.rewardError } : {}),
      referenceFix: facts.referenceFix,
      agentDiff: run.diff,
      testFilesTouched: testFilesAmong(run.changedPaths),
      trajectory: run.trajectory,
      testOutput: await testOutputTail(run.logDir),
      ...(run.agentError ? { agentError: run.agentError } : {}),
    });
    return { classification };
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (error.code === 'RATE_LIMITED')
      throw swegenError(
        'rate_limited',
        `the classification model is rate limited: ${error.message}`,
      );
    return { classificationError: error.message };
  }
}

async function oneTrial(
  options: AnalyzeOptions,
  facts: TaskFacts,
  environment: BuiltEnvironment,
  workDir: string,
  trial: number,
): Promise<AnalyzedTrial> {
  const run = await runAgentTrial({
    ...options,
    taskDir: facts.taskDir,
    taskId: facts.taskId,
    instruction: facts.instruction,
    environment,
    timeouts: facts.timeouts,
    trialDir: join(workDir, `trial-${trial}`),
  });
  const logDir = join(options.stateDir, 'jobs', facts.taskId, 'analyze', `trial-${trial}`);
  await rm(logDir, { recursive: true, force: true });
  await cp(run.logDir, logDir, { recursive: true });
  return {
    trial,
    reward: run.reward,
    ...(run.rewardError ? { rewardError: run.rewardError } : {}),
    ...(run.agentError ? { agentError: run.agentError } : {}),
    ...(await classify(options, facts, run)),
    changedFiles: run.changedPaths,
    testFilesTouched: testFilesAmong(run.changedPaths),
    logDir,
  };
}

async function runTrials(
  options: AnalyzeOptions,
  facts: TaskFacts,
  environment: BuiltEnvironment,
  workDir: string,
): Promise<AnalyzedTrial[]> {
  const results = new Array<AnalyzedTrial>(options.trials);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < options.trials; i = next++) {
      const result = await oneTrial(options, facts, environment, workDir, i + 1);
      results[i] = result;
      options.onTrial?.(result);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, options.trials));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/**
 * `swegen analyze`: builds the task's environment once (as validation does), runs `trials`
 * trials of Caravel's agent on copies of it, `concurrency` at a time, classifies each against
 * its reward, and derives the task's verdict. The analysis is written to `<task>/analysis.json`
 * and returned. A broken environment is a `broken` verdict with no trial run.
 */
export async function analyzeTask(taskDir: string, options: AnalyzeOptions): Promise<TaskAnalysis> {
  if (!Number.isInteger(options.trials) || options.trials < 1)
    throw swegenError(
      'invalid_input',
      `the number of trials must be at least 1, not ${options.trials}`,
    );
  const facts = await readFacts(resolve(taskDir));
  const workDir = await mkdtemp(join(tmpdir(), 'caravel-swegen-analyze-'));
  await chmod(workDir, 0o755);
  await mkdir(join(options.stateDir, 'jobs', facts.taskId), { recursive: true });
  let trials: AnalyzedTrial[] = [];
  let environmentError: string | undefined;
  try {
    const environment = await buildOnHost({
      taskDir: facts.taskDir,
      repoPath: options.repoPath,
      workDir: join(workDir, 'build'),
      timeoutMs: facts.timeouts.buildMs,
      ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
      ...(options.egress ? { egress: options.egress } : {}),
    }).catch((error: unknown) => {
      if (!isAppError(error)) throw error;
      environmentError = error.message;
      return undefined;
    });
    if (environment) trials = await runTrials(options, facts, environment, workDir);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const analysis: TaskAnalysis = {
    taskId: facts.taskId,
    analyzedAt: (options.now?.() ?? new Date()).toISOString(),
    ...(environmentError ? { environmentError } : {}),
    trials,
    verdict: taskVerdict(
      trials.map((t) => ({
        reward: t.reward,
        ...(t.classification ? { classification: t.classification.classification } : {}),
      })),
      environmentError,
    ),
  };
  await writeFile(join(facts.taskDir, 'analysis.json'), `${JSON.stringify(analysis, null, 2)}\n`);
  return analysis;
}
