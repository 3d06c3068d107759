import {
  summaryLine,
  validateTasks,
  type TaskValidation,
  type ValidationRunner,
} from '@caravel/swegen';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildEgressOf, type SwegenEnv } from './swegen.config.js';

/** The parsed options of `caravel swegen validate`. */
export interface SwegenValidateOptions {
  readonly path: string;
  readonly repoPath?: string;
  readonly stateDir: string;
  readonly runner: ValidationRunner;
  readonly maxParallel: number;
  /** Also write the summary lines to this file. */
  readonly results?: string;
  readonly write: (line: string) => void;
}

/** `caravel swegen validate`: NOP must score 0 and Oracle 1, for one task or every task of a directory. */
export async function swegenValidate(
  options: SwegenValidateOptions,
  env: SwegenEnv,
): Promise<TaskValidation[]> {
  const results = await validateTasks(options.path, {
    stateDir: resolve(options.stateDir),
    runner: options.runner,
    maxParallel: options.maxParallel,
    searchPath: env.PATH ?? '',
    egress: buildEgressOf(env),
    ...(options.repoPath ? { repoPath: options.repoPath } : {}),
    onResult: (result) => options.write(summaryLine(result)),
  });
  if (options.results)
    await writeFile(options.results, results.map((r) => `${summaryLine(r)}\n`).join(''));
  const passed = results.filter((r) => r.passed).length;
  options.write(`${passed}/${results.length} tasks passed validation`);
  return results;
}
