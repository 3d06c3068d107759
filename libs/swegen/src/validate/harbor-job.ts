import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The reward of one Harbor job of a single trial, or why there is none. */
export type HarborJobOutcome =
  | { readonly reward: number; readonly trial?: string }
  | { readonly reward: null; readonly error: string };

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;

/** A malformed or unexpected job layout: reported, never guessed around. */
class OddJob extends Error {}

async function readObject(file: string, what: string): Promise<Json | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new OddJob(`Harbor's ${what} ${file} is not JSON`);
  }
  const found = object(parsed);
  if (!found) throw new OddJob(`Harbor's ${what} ${file} is not a JSON object`);
  return found;
}

/** The main metric of a `{name: value}` map: `reward`, else its only key. */
function mainMetric<T>(metrics: Json | undefined): T | undefined {
  if (!metrics) return undefined;
  if ('reward' in metrics) return metrics['reward'] as T;
  const values = Object.values(metrics);
  return values.length === 1 ? (values[0] as T) : undefined;
}

/** A single trial's reward from a list of `[reward, trial]`; more than one trial is odd. */
function single(found: [number, string][], file: string): HarborJobOutcome | undefined {
  if (found.length === 0) return undefined;
  if (found.length > 1)
    throw new OddJob(`Harbor's job result ${file} lists ${found.length} trials; expected one`);
  const [reward, trial] = found[0]!;
  return { reward, trial };
}

/**
 * `stats.evals[<agent>__adhoc].reward_stats.reward`: `{"<value>": [trial names]}`, the values
 * as strings ("1.0"); swe-gen-harbor.md §2.8 (Harbor `models/job/result.py`).
 */
function fromStats(job: Json, file: string): [number, string][] {
  const found: [number, string][] = [];
  for (const evaluation of Object.values(object(object(job['stats'])?.['evals']) ?? {})) {
    const buckets = object(mainMetric(object(object(evaluation)?.['reward_stats'])));
    for (const [key, trials] of Object.entries(buckets ?? {})) {
      const reward = Number(key);
      if (key.trim() === '' || !Number.isFinite(reward))
        throw new OddJob(`Harbor's job result ${file} has a reward bucket '${key}'`);
      for (const trial of Array.isArray(trials) ? trials : []) found.push([reward, String(trial)]);
    }
  }
  return found;
}

/** `verifier_result.rewards.reward` of a TrialResult (null when the trial errored). */
function trialReward(trial: Json, file: string): number | undefined {
  const rewards = object(object(trial['verifier_result'])?.['rewards']);
  const reward = mainMetric<unknown>(rewards);
  if (reward === undefined) return undefined;
  if (typeof reward !== 'number' || !Number.isFinite(reward))
    throw new OddJob(`Harbor's trial result ${file} has a non-numeric reward`);
  return reward;
}

/** `exception_info` of a TrialResult as `Type: message`. */
function trialException(trial: Json): string | undefined {
  const info = object(trial['exception_info']);
  if (!info) return undefined;
  const type = typeof info['exception_type'] === 'string' ? info['exception_type'] : 'Exception';
  const message = typeof info['exception_message'] === 'string' ? info['exception_message'] : '';
  return message ? `${type}: ${message}` : type;
}

/** The exception types of `stats.evals[*].exception_stats` (`{Type: [trial names]}`). */
function statsExceptions(job: Json): string[] {
  return Object.values(object(object(job['stats'])?.['evals']) ?? {}).flatMap((evaluation) =>
    Object.keys(object(object(evaluation)?.['exception_stats']) ?? {}),
  );
}

/** The TrialResults of the job's trial directories (`<task[:32]>__<id>/result.json`). */
async function trialDirs(jobDir: string): Promise<{ name: string; file: string; result: Json }[]> {
  const entries = await readdir(jobDir, { withFileTypes: true });
  const trials = [];
  for (const entry of entries
    .filter((e) => e.isDirectory())
    .sort((a, b) => a.name.localeCompare(b.name))) {
    const file = join(jobDir, entry.name, 'result.json');
    const result = await readObject(file, 'trial result');
    if (result) trials.push({ name: entry.name, file, result });
  }
  return trials;
}

async function readJob(jobDir: string): Promise<HarborJobOutcome> {
  const file = join(jobDir, 'result.json');
  const job = await readObject(file, 'job result');
  if (!job) return { reward: null, error: `Harbor wrote no job result (${file})` };
  const stats = single(fromStats(job, file), file);
  if (stats) return stats;
  const listed = Array.isArray(job['trial_results']) ? job['trial_results'].map(object) : [];
  const exceptions: string[] = [];
  const fromList: [number, string][] = [];
  for (const trial of listed.filter((t): t is Json => t !== undefined)) {
    const reward = trialReward(trial, file);
    if (reward !== undefined)
      fromList.push([reward, typeof trial['trial_name'] === 'string' ? trial['trial_name'] : '']);
    const exception = trialException(trial);
    if (exception) exceptions.push(exception);
  }
  const inList = single(fromList, file);
  if (inList) return inList;
  const fromDirs: [number, string][] = [];
  for (const trial of await trialDirs(jobDir)) {
    const reward = trialReward(trial.result, trial.file);
    if (reward !== undefined) fromDirs.push([reward, trial.name]);
    const exception = trialException(trial.result);
    if (exception) exceptions.push(exception);
  }
  const inDirs = single(fromDirs, file);
  if (inDirs) return inDirs;
  const why = exceptions[0] ?? statsExceptions(job)[0];
  return {
    reward: null,
    error: why ? `the Harbor trial failed: ${why}` : `Harbor's job result ${file} names no reward`,
  };
}

/**
 * Reads the reward of a Harbor job directory (`<jobs-dir>/<job-name>/`) that ran one trial, in
 * Harbor's layout (swe-gen-harbor.md §2.8): the job's `result.json` (JobResult) first by its
 * `stats.evals` reward buckets (recent Harbor writes it without `trial_results`), then by
 * `trial_results[].verifier_result.rewards`, then each trial directory's own `result.json`
 * (TrialResult). No job result, a file that is not a JSON object, a bucket that is not a number
 * or more than one trial is an error naming the file; a trial that raised gives its exception.
 */
export async function readHarborJob(jobDir: string): Promise<HarborJobOutcome> {
  try {
    return await readJob(jobDir);
  } catch (error) {
    if (error instanceof OddJob) return { reward: null, error: error.message };
    throw error;
  }
}
