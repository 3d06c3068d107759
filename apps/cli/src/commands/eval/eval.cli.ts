import type { EnvSource } from '@caravel/config';
import { DEFAULT_GATE_POLICY } from '@caravel/evals';
import { UsageError } from '../cli-args.js';
import { compareEvalRuns, isRunId } from './eval-compare.command.js';
import type { EvalRecords } from './eval-records.js';

/** What `caravel eval` needs of the command line's IO. */
export interface EvalIo {
  out(text: string): void;
  err(text: string): void;
  onSignal(handler: (signal: string) => void): void;
}

type Values = Readonly<Record<string, string | undefined>>;

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

const COMPARE_ONLY = ['max-drop', 'alpha'];
const RUN_ONLY = [
  'config',
  'model',
  'attempts',
  'concurrency',
  'repo-path',
  'state-dir',
  'data-dir',
];

function refuseOptions(sub: string, values: Values, names: readonly string[]): void {
  const given = names.filter((name) => values[name] !== undefined);
  if (given.length > 0)
    throw new UsageError('eval', `eval ${sub} does not take --${given.join(', --')}`);
}

/** The database eval runs are recorded in, opened, when one is configured; else undefined. */
async function openRecords(values: Values, env: EnvSource): Promise<EvalRecords | undefined> {
  const { EvalRecords, evalDatabaseUrl } = await import('./eval-records.js');
  const url = evalDatabaseUrl(values['database-url'], env);
  return url ? EvalRecords.open(url) : undefined;
}

/**
 * `caravel eval compare BASE CANDIDATE [--out DIR] [--max-drop P] [--alpha A]`: exit 1 when
 * refused. BASE and CANDIDATE are run files, folders, or run ids recorded in the database.
 */
async function compare(
  args: readonly string[],
  values: Values,
  env: EnvSource,
  io: EvalIo,
): Promise<number> {
  const [baseline, candidate, ...extra] = args;
  if (!baseline || !candidate)
    throw new UsageError('eval', 'compare needs two runs: BASE CANDIDATE (files or run folders)');
  if (extra.length > 0) throw new UsageError('eval', `unexpected '${extra.join(' ')}'`);
  refuseOptions('compare', values, RUN_ONLY);
  const maxDrop = numberOption('max-drop', values['max-drop'], 100);
  const alpha = numberOption('alpha', values['alpha'], 1);
  const out = values['out'];
  const byId = (await isRunId(baseline)) || (await isRunId(candidate));
  const records = byId ? await openRecords(values, env) : undefined;
  const report = await compareEvalRuns({
    baseline,
    candidate,
    ...(out ? { out } : {}),
    ...(records ? { recorded: (runId: string) => records.evalRun(runId) } : {}),
    policy: {
      maxDrop: maxDrop === undefined ? DEFAULT_GATE_POLICY.maxDrop : maxDrop / 100,
      alpha: alpha ?? DEFAULT_GATE_POLICY.alpha,
    },
  }).finally(() => records?.close());
  io.out(report.text);
  for (const file of report.written) io.out(`written: ${file}\n`);
  return report.verdict.verdict === 'accept' ? 0 : 1;
}

/**
 * `caravel eval run SUITE --config C [--attempts N] [--concurrency N] [--out DIR] ...`: exit 0
 * when every attempt is recorded, 130 when stopped by a signal (run it again to resume).
 */
async function run(
  args: readonly string[],
  values: Values,
  env: EnvSource,
  io: EvalIo,
): Promise<number> {
  const [suite, ...extra] = args;
  if (!suite) throw new UsageError('eval', 'run needs a SUITE folder (of Harbor tasks)');
  if (extra.length > 0) throw new UsageError('eval', `unexpected '${extra.join(' ')}'`);
  refuseOptions('run', values, COMPARE_ONLY);
  const config = values['config'];
  if (!config)
    throw new UsageError('eval', 'run needs --config NAME|FILE.json (the configuration)');
  const attempts = countOption('attempts', values['attempts'], 1, 100);
  const concurrency = countOption('concurrency', values['concurrency'], 2, 64);
  const stop = new AbortController();
  io.onSignal((signal) => {
    if (stop.signal.aborted) process.exit(130);
    io.err(`\n${signal}: stopping; finished attempts are kept (again to quit at once)\n`);
    stop.abort(new Error(signal));
  });
  // The suite and the configuration are checked before the platform's code is loaded (seconds).
  const { readSuite } = await import('./eval-suite.js');
  const { resolveEvalConfig } = await import('./eval-config.js');
  const model = values['model'];
  const inputs = {
    suite: await readSuite(suite),
    config: await resolveEvalConfig(config, { ...(model ? { model } : {}), env }),
  };
  const { runEvalSuite } = await import('./eval-run.service.js');
  const records = await openRecords(values, env);
  try {
    const report = await runEvalSuite({
      ...inputs,
      attempts,
      concurrency,
      env,
      ...(records ? { records: records.runs } : {}),
      ...(values['out'] ? { out: values['out'] } : {}),
      ...(values['repo-path'] ? { repoPath: values['repo-path'] } : {}),
      ...(values['state-dir'] ? { stateDir: values['state-dir'] } : {}),
      ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
      write: (line) => io.out(`${line}\n`),
      signal: stop.signal,
    });
    const tasks = report.run.tasks;
    const resolved = tasks.filter((t) => t.attempts.some((a) => a.resolved)).length;
    io.out(`done: ${resolved}/${tasks.length} task(s) resolved by at least one attempt\n`);
    for (const file of report.written) io.out(`written: ${file}\n`);
    if (records) io.out(`recorded: run ${report.run.runId} in ${records.where}\n`);
    return 0;
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    io.err('caravel eval: stopped; run the same command again to resume\n');
    return 130;
  } finally {
    await records?.close();
  }
}

/** `caravel eval run|compare ...`. */
export async function runEval(
  positionals: readonly string[],
  values: Values,
  io: EvalIo,
  env: EnvSource = {},
): Promise<number> {
  const [sub, ...args] = positionals;
  if (sub === 'compare') return compare(args, values, env, io);
  if (sub === 'run') return run(args, values, env, io);
  throw new UsageError(
    'eval',
    sub
      ? `unknown eval command '${sub}'`
      : 'needs a subcommand: eval run SUITE --config C, or eval compare BASE CANDIDATE',
  );
}
