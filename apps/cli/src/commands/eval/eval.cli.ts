import type { EnvSource } from '@caravel/config';
import { UsageError } from '../cli-args.js';
import { compareEvalRuns, isRunId } from './eval-compare.command.js';
import {
  GATE_OPTIONS,
  POLICY_OPTIONS,
  RUN_OPTIONS,
  gatePolicyOf,
  openRecords,
  refuseArguments,
  refuseOptions,
  stoppedOr,
  suiteRunSettings,
  type EvalIo,
  type Values,
} from './eval-options.js';

export type { EvalIo } from './eval-options.js';

/**
 * `caravel eval compare BASE CANDIDATE [--out DIR] [--max-drop P] [--alpha A]`: exit 1 when
 * refused. BASE and CANDIDATE are run files, folders, or run ids recorded in the database: two
 * suite runs (resolve rate) or two reviewer runs (F1).
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
  refuseArguments(extra);
  refuseOptions('compare', values, [...RUN_OPTIONS, ...GATE_OPTIONS, 'set', 'sandbox']);
  const policy = gatePolicyOf(values);
  const out = values['out'];
  const byId = (await isRunId(baseline)) || (await isRunId(candidate));
  const records = byId ? await openRecords(values, env) : undefined;
  const report = await (async () => {
    const { compareReviewRefs } = await import('./review-compare.command.js');
    const options = { ...(out ? { out } : {}), policy };
    const review = await compareReviewRefs({ baseline, candidate }, records, options);
    return (
      review ??
      compareEvalRuns({
        baseline,
        candidate,
        ...options,
        ...(records ? { recorded: (runId: string) => records.evalRun(runId) } : {}),
      })
    );
  })().finally(() => records?.close());
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
  refuseArguments(extra);
  refuseOptions('run', values, [...POLICY_OPTIONS, ...GATE_OPTIONS, 'set', 'sandbox']);
  const config = values['config'];
  if (!config)
    throw new UsageError('eval', 'run needs --config NAME|FILE.json (the configuration)');
  const settings = suiteRunSettings(values, env, io);
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
      ...settings,
      ...(records ? { records: records.runs } : {}),
    });
    const tasks = report.run.tasks;
    const resolved = tasks.filter((t) => t.attempts.some((a) => a.resolved)).length;
    io.out(`done: ${resolved}/${tasks.length} task(s) resolved by at least one attempt\n`);
    for (const file of report.written) io.out(`written: ${file}\n`);
    if (records) io.out(`recorded: run ${report.run.runId} in ${records.where}\n`);
    return 0;
  } catch (error) {
    return stoppedOr(settings, error, io);
  } finally {
    await records?.close();
  }
}

/** `caravel eval scheduler [--once]`: a team deployment's nightly suites (docs/evals.md). */
async function scheduler(
  args: readonly string[],
  values: Values,
  env: EnvSource,
  io: EvalIo,
): Promise<number | 'serving'> {
  refuseArguments(args);
  const others = Object.keys(values).filter((name) => name !== 'once');
  refuseOptions('scheduler', values, others);
  const { runEvalScheduler } = await import('./schedule/eval-scheduler.command.js');
  return runEvalScheduler(values['once'] !== undefined, env, io);
}

/** `caravel eval run|compare|gate|scheduler ...`. */
export async function runEval(
  positionals: readonly string[],
  values: Values,
  io: EvalIo,
  env: EnvSource = {},
): Promise<number | 'serving'> {
  const [sub, ...args] = positionals;
  if (sub === 'compare') return compare(args, values, env, io);
  if (sub === 'run') return run(args, values, env, io);
  if (sub === 'gate') return (await import('./eval-gate.cli.js')).gate(args, values, env, io);
  if (sub === 'gate-style')
    return (await import('./style-gate.cli.js')).gateStyle(args, values, env, io);
  if (sub === 'scheduler') return scheduler(args, values, env, io);
  throw new UsageError(
    'eval',
    sub
      ? `unknown eval command '${sub}'`
      : 'needs a subcommand: eval run SUITE --config C, or eval compare BASE CANDIDATE (or eval gate --suite SUITE --config C, or eval scheduler)',
  );
}
