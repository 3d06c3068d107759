import { swegenError, type RuleCompat, type ValidationRunner } from '@caravel/swegen';
import type { parseArgs } from 'node:util';
import type { SwegenGenerationOptions } from './create.command.js';

/** Every option of `caravel swegen` (each subcommand reads its own). */
export const OPTIONS = {
  repo: { type: 'string' },
  pr: { type: 'string' },
  'repo-path': { type: 'string' },
  'pr-json': { type: 'string' },
  model: { type: 'string' },
  'tasks-dir': { type: 'string' },
  'state-dir': { type: 'string' },
  sandbox: { type: 'string' },
  runner: { type: 'string' },
  'min-source-files': { type: 'string' },
  'max-source-files': { type: 'string' },
  compat: { type: 'string' },
  'no-validate': { type: 'boolean' },
  'no-completion': { type: 'boolean' },
  'no-require-issue': { type: 'boolean' },
  'no-require-minimum-difficulty': { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  force: { type: 'boolean' },
  'max-model-calls': { type: 'string' },
  'max-parallel': { type: 'string' },
  results: { type: 'string' },
  'resume-from': { type: 'string' },
  'dry-run': { type: 'boolean' },
  reset: { type: 'boolean' },
  'max-prs': { type: 'string' },
  'task-delay': { type: 'string' },
  timeout: { type: 'string' },
  'skip-list': { type: 'string' },
  'per-page': { type: 'string' },
  'publish-repo': { type: 'string' },
  'publish-path': { type: 'string' },
  'publish-base': { type: 'string' },
  'publish-branch-prefix': { type: 'string' },
  'publish-state-branch-prefix': { type: 'string' },
  'publish-state-path': { type: 'string' },
  'publish-clone-dir': { type: 'string' },
  'publish-dry-run': { type: 'boolean' },
  'cleanup-local': { type: 'boolean' },
  'n-trials': { type: 'string', short: 'k' },
  'n-concurrent': { type: 'string', short: 'n' },
  'analysis-model': { type: 'string' },
  'skip-classify': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Parsed option values. */
export type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** A value from a fixed set, else INVALID_INPUT. */
export function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw swegenError(
    'invalid_input',
    `--${name} must be one of ${allowed.join(', ')}, not '${value}'`,
  );
}

/** A whole number option, else INVALID_INPUT. */
export function count(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw swegenError('invalid_input', `--${name} must be a whole number, not '${value}'`);
  return n;
}

/** The generation options `create` and `farm` share, from the command line. */
export function generationOptions(values: Values): SwegenGenerationOptions {
  return {
    ...(values.model ? { model: values.model } : {}),
    stateDir: values['state-dir'] ?? '.swegen',
    tasksDir: values['tasks-dir'] ?? 'tasks',
    sandbox: oneOf('sandbox', values.sandbox, ['bwrap', 'local'], 'bwrap'),
    runner: oneOf<ValidationRunner>('runner', values.runner, ['auto', 'harbor', 'bwrap'], 'auto'),
    validate: !values['no-validate'],
    requireIssue: !values['no-require-issue'],
    requireMinimumDifficulty: !values['no-require-minimum-difficulty'],
    minSourceFiles: count('min-source-files', values['min-source-files'], 3),
    maxSourceFiles: count('max-source-files', values['max-source-files'], 10),
    compat: oneOf<RuleCompat>('compat', values.compat, ['caravel', 'swegen-0.1'], 'caravel'),
    useReferences: !values['no-cache'],
    maxModelCalls: count('max-model-calls', values['max-model-calls'], 40),
  };
}
