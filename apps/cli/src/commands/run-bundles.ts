import { AppError } from '@caravel/errors';
import { prepareRunBundles, type RunBundles } from '@caravel/sandbox';
import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** `caravel run --tools-dir DIR --bundle NAME…`: SWE-agent tool bundles for the run's sandbox. */
export interface RunBundleOptions {
  /** A folder of bundles, or a SWE-agent checkout (its `tools/`); never fetched. */
  toolsDir?: string;
  /** The bundles to install, in order (their `bin/` folders go on PATH in this order). */
  bundles?: readonly string[];
}

/**
 * Checks the bundle options before anything boots: `--bundle` needs `--tools-dir` and the
 * reverse (a run has no `replay_config` naming bundles), the folder must exist, and bundles
 * need bubblewrap (their copy is bound read-only at `/root/tools`; `local` has no binds).
 * @throws AppError BAD_REQUEST naming the option.
 */
export async function checkRunBundleOptions(
  options: RunBundleOptions,
  sandboxProvider: string,
): Promise<void> {
  const names = options.bundles ?? [];
  if (options.toolsDir === undefined) {
    if (names.length === 0) return;
    throw new AppError(
      'BAD_REQUEST',
      '--bundle needs --tools-dir (a folder of bundles or a SWE-agent checkout)',
    );
  }
  if (names.length === 0) {
    throw new AppError(
      'BAD_REQUEST',
      '--tools-dir needs --bundle NAME (repeatable): the bundles to install, in order',
    );
  }
  if (!(await stat(resolve(options.toolsDir)).catch(() => undefined))?.isDirectory()) {
    throw new AppError('BAD_REQUEST', `--tools-dir ${options.toolsDir}: no such directory`);
  }
  if (sandboxProvider !== 'bwrap') {
    throw new AppError(
      'BAD_REQUEST',
      `--tools-dir needs the bwrap sandbox (SANDBOX_PROVIDER is ${sandboxProvider}): bundles are bound read-only at /root/tools`,
    );
  }
}

/**
 * Reads the bundles as data (nothing of them runs on the host) and stages their read-only copy
 * in the run's data directory, for the sandbox broker to bind and the runner to install.
 * Undefined without `--tools-dir`.
 */
export async function runBundlesFor(
  options: RunBundleOptions,
  dataDir: string,
): Promise<RunBundles | undefined> {
  if (options.toolsDir === undefined || (options.bundles ?? []).length === 0) return undefined;
  // A kept data directory (--data-dir) holds the previous run's copy: replaced, never merged.
  const staged = join(dataDir, 'swe-tools');
  await rm(staged, { recursive: true, force: true });
  return prepareRunBundles(options.toolsDir, options.bundles ?? [], staged);
}
