import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { UsageError, type ParsedCommand } from '../cli-args.js';

/** What `caravel review-eval` needs of the command line's IO. */
export interface ReviewEvalIo {
  out(text: string): void;
  err(text: string): void;
  onSignal(handler: (signal: string) => void): void;
}

type Values = Readonly<Record<string, string | undefined>>;

const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/** A whole number from `min` to `max` (default `fallback`), or a UsageError naming the option. */
function wholeOption(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
) {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max)
    throw new UsageError(
      'review-eval',
      `--${name} must be a whole number from ${min} to ${max}, not '${value}'`,
    );
  return Number(value);
}

function choiceOption<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError('review-eval', `--${name} must be ${choices.join(', ')}, not '${value}'`);
  return value as T;
}

/** The reviewer's model: `--model`, else REVIEWER_MODEL, else CARAVEL_MODEL, and which it was. */
export function reviewerModelOf(values: Values, env: EnvSource): { model: string; origin: string } {
  if (values['model']) return { model: values['model'], origin: '--model' };
  for (const key of ['REVIEWER_MODEL', 'CARAVEL_MODEL']) {
    const model = env[key];
    if (model) return { model, origin: key };
  }
  throw new AppError(
    'CONFIG_INVALID',
    'no reviewer model: pass --model (e.g. scripted:FILE, anthropic:claude-sonnet-4-5) or set REVIEWER_MODEL or CARAVEL_MODEL',
  );
}

/**
 * `caravel review-eval SET [--model REF] [--judge REF] [--concurrency N] [--tolerance N]
 * [--min-severity S] [--sandbox bwrap|local] [--out DIR]`: exit 0 when every case was reviewed,
 * 1 when a case could not be (the results are written all the same), 130 when stopped.
 */
export async function reviewEval(
  { positionals, values }: Pick<ParsedCommand, 'positionals' | 'values'>,
  env: EnvSource,
  io: ReviewEvalIo,
): Promise<number> {
  const [path, ...extra] = positionals;
  if (!path) throw new UsageError('review-eval', 'needs a labelled SET (a folder or a .json file)');
  if (extra.length > 0) throw new UsageError('review-eval', `unexpected '${extra.join(' ')}'`);
  const concurrency = wholeOption('concurrency', values['concurrency'], 2, 1, 64);
  const tolerance = wholeOption('tolerance', values['tolerance'], 0, 0, 1000);
  const minSeverity = choiceOption('min-severity', values['min-severity'], SEVERITIES, 'low');
  const sandbox = choiceOption('sandbox', values['sandbox'], ['bwrap', 'local'] as const, 'bwrap');
  const config = values['config'];
  if (config !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/.test(config))
    throw new UsageError(
      'review-eval',
      `--config must be a name (letters, digits, . _ -), not '${config}'`,
    );
  const { model, origin } = reviewerModelOf(values, env);
  // The set is read and checked before the reviewer's code is loaded (seconds).
  const { readReviewSet } = await import('./review-set-files.js');
  const set = await readReviewSet(path);
  const { openRecords, stopOnSignal } = await import('../eval/eval-options.js');
  const stopped = stopOnSignal(io, 'stopping after the cases under review');
  // NestJS needs decorator metadata before the reviewer's decorated classes load.
  await import('reflect-metadata');
  const { runReviewEval } = await import('./review-eval.service.js');
  const records = await openRecords(values, env);
  const report = await runReviewEval({
    ...(records ? { records } : {}),
    ...(config ? { config } : {}),
    set,
    model,
    modelOrigin: origin,
    ...(values['judge'] ? { judge: values['judge'] } : {}),
    concurrency,
    tolerance,
    minSeverity,
    sandbox,
    ...(values['out'] ? { out: values['out'] } : {}),
    env,
    write: (line) => io.out(`${line}\n`),
    signal: stopped,
  }).finally(() => records?.close());
  io.out(`\n${report.table}`);
  for (const file of report.written) io.out(`written: ${file}\n`);
  if (records) io.out(`recorded: run ${report.result.runId ?? ''} in ${records.where}\n`);
  if (report.stopped) {
    io.err('caravel review-eval: stopped; the cases reviewed so far are written\n');
    return 130;
  }
  return report.result.cases.some((c) => c.error !== undefined) ? 1 : 0;
}
