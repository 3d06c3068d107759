import { execFile } from 'node:child_process';
import { access, constants, mkdir, readdir, readFile } from 'node:fs/promises';
import { basename, delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { validationPassed, type TaskValidation, type TrialOutcome } from './validation-result.js';

const run = promisify(execFile);

/** The `harbor` executable on `path` (a PATH-style list), or undefined. */
export async function findHarbor(path: string): Promise<string | undefined> {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'harbor');
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;

/** The reward of a job's `stats.evals[*].reward_stats.reward` buckets (keys are strings such as "1.0"). */
function rewardFromStats(job: Json): number | undefined {
  for (const evaluation of Object.values(obj(obj(job['stats'])?.['evals']) ?? {})) {
    const buckets = obj(obj(obj(evaluation)?.['reward_stats'])?.['reward']);
    for (const [key, trials] of Object.entries(buckets ?? {})) {
      if (Array.isArray(trials) && trials.length > 0) return Number.parseFloat(key);
    }
  }
  return undefined;
}

function rewardFromTrial(trial: unknown): number | undefined {
  const reward = obj(obj(obj(trial)?.['verifier_result'])?.['rewards'])?.['reward'];
  return typeof reward === 'number' ? reward : undefined;
}

/**
 * The reward of one Harbor job directory, with the fallbacks recent Harbor needs (it writes the
 * job result without `trial_results`): the stats buckets, then `trial_results`, then each
 * trial's own `result.json`.
 */
export async function parseHarborJob(jobDir: string): Promise<number | undefined> {
  const job = obj(await readJson(join(jobDir, 'result.json')).catch(() => undefined)) ?? {};
  const fromStats = rewardFromStats(job);
  if (fromStats !== undefined) return fromStats;
  for (const trial of Array.isArray(job['trial_results']) ? job['trial_results'] : []) {
    const reward = rewardFromTrial(trial);
    if (reward !== undefined) return reward;
  }
  for (const entry of await readdir(jobDir, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const reward = rewardFromTrial(
      await readJson(join(jobDir, entry.name, 'result.json')).catch(() => undefined),
    );
    if (reward !== undefined) return reward;
  }
  return undefined;
}

async function harborTrial(
  harbor: string,
  taskDir: string,
  jobsDir: string,
  agent: 'nop' | 'oracle',
): Promise<TrialOutcome> {
  const parent = join(jobsDir, `${basename(taskDir)}.${agent}.${Date.now()}`);
  await mkdir(parent, { recursive: true });
  const args = [
    'run',
    '--agent',
    agent,
    '-p',
    taskDir,
    '--jobs-dir',
    parent,
    ...(agent === 'nop' ? ['--no-delete'] : []),
  ];
  const failure = await run(harbor, args, { maxBuffer: 64 * 1024 * 1024 }).then(
    () => undefined,
    (error: Error) => error.message.split('\n')[0],
  );
  const jobs = (await readdir(parent, { withFileTypes: true })).filter((e) => e.isDirectory());
  const reward = jobs[0] ? await parseHarborJob(join(parent, jobs[0].name)) : undefined;
  if (reward === undefined)
    return { agent, reward: null, error: failure ?? 'Harbor reported no reward', logDir: parent };
  return { agent, reward, logDir: parent };
}

/** Validates one task by running Harbor's NOP and Oracle agents (Docker required). */
export async function validateWithHarbor(
  harbor: string,
  taskDir: string,
  jobsDir: string,
): Promise<TaskValidation> {
  const nop = await harborTrial(harbor, taskDir, jobsDir, 'nop');
  const oracle = await harborTrial(harbor, taskDir, jobsDir, 'oracle');
  return {
    taskId: basename(taskDir),
    taskDir,
    runner: 'harbor',
    nop,
    oracle,
    passed: validationPassed(nop, oracle),
  };
}
