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

/** How the bundles were asked for, to name it in an error: the command line or the settings. */
export const BUNDLE_FLAGS = { dir: '--tools-dir', bundle: '--bundle NAME (repeatable)' } as const;
export const BUNDLE_SETTINGS = {
  dir: 'SWE_AGENT_TOOLS_DIR',
  bundle: 'SWE_AGENT_BUNDLES (comma-separated)',
} as const;

/**
 * Checks the bundle options before anything boots: bundles need a tools folder and the reverse
 * (a run has no `replay_config` naming bundles), the folder must exist, and bundles need
 * bubblewrap (their copy is bound read-only at `/root/tools`; `local` has no binds).
 * @throws AppError BAD_REQUEST naming the option (`names`: the flags, or the settings).
 */
export async function checkRunBundleOptions(
  options: RunBundleOptions,
  sandboxProvider: string,
  names: { dir: string; bundle: string } = BUNDLE_FLAGS,
): Promise<void> {
  const bundles = options.bundles ?? [];
  const flag = names.bundle.split(' ')[0] ?? names.bundle;
  if (options.toolsDir === undefined) {
    if (bundles.length === 0) return;
    throw new AppError(
      'BAD_REQUEST',
      `${flag} needs ${names.dir} (a folder of bundles or a SWE-agent checkout)`,
    );
  }
  if (bundles.length === 0) {
    throw new AppError(
      'BAD_REQUEST',
      `${names.dir} needs ${names.bundle}: the bundles to install, in order`,
    );
  }
  if (!(await stat(resolve(options.toolsDir)).catch(() => undefined))?.isDirectory()) {
    throw new AppError('BAD_REQUEST', `${names.dir} ${options.toolsDir}: no such directory`);
  }
  if (sandboxProvider !== 'bwrap') {
    throw new AppError(
      'BAD_REQUEST',
      `${names.dir} needs the bwrap sandbox (SANDBOX_PROVIDER is ${sandboxProvider}): bundles are bound read-only at /root/tools`,
    );
  }
}

/**
 * The bundles a run installs: the command line's when it names any, else the settings'
 * (`SWE_AGENT_TOOLS_DIR`, `SWE_AGENT_BUNDLES`), checked (see {@link checkRunBundleOptions}).
 */
export async function runBundleSelection(
  options: RunBundleOptions,
  settings: RunBundleOptions | undefined,
  sandboxProvider: string,
): Promise<RunBundleOptions> {
  const fromFlags = options.toolsDir !== undefined || (options.bundles ?? []).length > 0;
  const chosen = fromFlags ? options : (settings ?? {});
  await checkRunBundleOptions(chosen, sandboxProvider, fromFlags ? BUNDLE_FLAGS : BUNDLE_SETTINGS);
  return chosen;
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
