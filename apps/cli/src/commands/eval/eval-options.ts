import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { DEFAULT_GATE_POLICY, type GatePolicy } from '@caravel/evals';
import { UsageError } from '../cli-args.js';
import type { EvalRecords } from './eval-records.js';
import type { EvalRunOptions } from './eval-run.service.js';

/** What `caravel eval` needs of the command line's IO. */
export interface EvalIo {
  out(text: string): void;
  err(text: string): void;
  onSignal(handler: (signal: string) => void): void;
}

export type Values = Readonly<Record<string, string | undefined>>;

/** A number option inside [0, max], or a UsageError naming it. */
function numberOption(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > max)
    throw new UsageError('eval', `--${name} must be a number from 0 to ${max}, not '${value}'`);
  return number;
}

/** A whole-number option from 1 to max (default `fallback`), or a UsageError naming it. */
function countOption(
  name: string,
  value: string | undefined,
  fallback: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > max)
    throw new UsageError(
      'eval',
      `--${name} must be a whole number from 1 to ${max}, not '${value}'`,
    );
  return Number(value);
}

/** Options only `eval compare` and `eval gate` take. */
export const POLICY_OPTIONS = ['max-drop', 'alpha'];
/** Options of running a suite (`eval run` and `eval gate`). */
export const RUN_OPTIONS = [
  'config',
  'model',
  'attempts',
  'concurrency',
  'repo-path',
  'state-dir',
  'data-dir',
];
/** Options only `eval gate` takes. */
export const GATE_OPTIONS = ['suite', 'against', 'proposal'];

/** A subcommand that takes no positional argument refuses any, naming them. */
export function refuseArguments(args: readonly string[]): void {
  if (args.length > 0) throw new UsageError('eval', `unexpected '${args.join(' ')}'`);
}

export function refuseOptions(sub: string, values: Values, names: readonly string[]): void {
  const given = names.filter((name) => values[name] !== undefined);
  if (given.length > 0)
    throw new UsageError('eval', `eval ${sub} does not take --${given.join(', --')}`);
}

/** `--max-drop P` (points) and `--alpha A`, the defaults otherwise. */
export function gatePolicyOf(values: Values): GatePolicy {
  const maxDrop = numberOption('max-drop', values['max-drop'], 100);
  const alpha = numberOption('alpha', values['alpha'], 1);
  return {
    maxDrop: maxDrop === undefined ? DEFAULT_GATE_POLICY.maxDrop : maxDrop / 100,
    alpha: alpha ?? DEFAULT_GATE_POLICY.alpha,
  };
}

/** The database eval runs are recorded in, opened, when one is configured; else undefined. */
export async function openRecords(
  values: Values,
  env: EnvSource,
): Promise<EvalRecords | undefined> {
  const { EvalRecords, evalDatabaseUrl } = await import('./eval-records.js');
  const url = evalDatabaseUrl(values['database-url'], env);
  return url ? EvalRecords.open(url) : undefined;
}

/** The database a gate keeps its verdicts in, opened; PRECONDITION_FAILED when none is configured. */
export async function gateRecords(values: Values, env: EnvSource): Promise<EvalRecords> {
  const records = await openRecords(values, env);
  if (!records)
    throw new AppError(
      'PRECONDITION_FAILED',
      'the gate keeps its verdicts in the database: configure one (--database-url, CARAVEL_DATABASE_URL, DATABASE_URL or CARAVEL_DATA_DIR)',
    );
  return records;
}

/**
 * A signal that the first SIGINT/SIGTERM aborts, after telling the person `stopping` (what is
 * kept); a second signal quits at once with 130.
 */
export function stopOnSignal(io: EvalIo, stopping: string): AbortSignal {
  const stop = new AbortController();
  io.onSignal((signal) => {
    if (stop.signal.aborted) process.exit(130);
    io.err(`\n${signal}: ${stopping} (again to quit at once)\n`);
    stop.abort(new Error(signal));
  });
  return stop.signal;
}

/** How a suite is run, from the options (all but the suite, configuration and database). */
export type SuiteRunSettings = Omit<EvalRunOptions, 'suite' | 'config' | 'records'>;

/**
 * The run's settings from the options, with a stop on the first signal (a second quits at once):
 * finished attempts are kept, the command exits 130.
 */
export function suiteRunSettings(values: Values, env: EnvSource, io: EvalIo): SuiteRunSettings {
  const attempts = countOption('attempts', values['attempts'], 1, 100);
  const concurrency = countOption('concurrency', values['concurrency'], 2, 64);
  const signal = stopOnSignal(io, 'stopping; finished attempts are kept');
  return {
    attempts,
    concurrency,
    env,
    ...(values['out'] ? { out: values['out'] } : {}),
    ...(values['repo-path'] ? { repoPath: values['repo-path'] } : {}),
    ...(values['state-dir'] ? { stateDir: values['state-dir'] } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    write: (line) => io.out(`${line}\n`),
    signal,
  };
}

/** Exit 130 with a word on resuming when the run was stopped by a signal; rethrows otherwise. */
export function stoppedOr(settings: SuiteRunSettings, error: unknown, io: EvalIo): number {
  if (!settings.signal?.aborted) throw error;
  io.err('caravel eval: stopped; run the same command again to resume\n');
  return 130;
}
