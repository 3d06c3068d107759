import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkdirFiles } from '../files/workdir-files.js';
import { sandboxError } from '../sandbox.errors.js';
import type { SandboxLogger } from '../sandbox.types.js';
import { BashSession } from '../session/bash-session.js';
import { driverArguments } from '../session/driver-script.js';
import { DirectoryProvider, type OpenedSession } from './directory-provider.js';
import { HOOKLESS_GIT_ENV, type OneShotSpawn } from './one-shot.js';
import { safeEnvironment } from './safe-env.js';
import {
  DEFAULT_SANDBOX_SETTINGS,
  SandboxStore,
  type SandboxDefaults,
  type SandboxPaths,
  type SandboxRecord,
} from './sandbox-store.js';
import { DEFAULT_SESSION_TIMING, type SessionTiming } from './session-timing.js';

/** Settings of the `local` provider. */
export interface LocalProviderOptions {
  /** Where sandbox directories live. */
  readonly rootDir: string;
  /** Receives the warning that this provider isolates nothing. */
  readonly logger: SandboxLogger;
  readonly bashPath?: string;
  readonly defaults?: SandboxDefaults;
  readonly timing?: SessionTiming;
}

/**
 * Development only: a plain directory and a bash session running as the host user. It gives the
 * same session and file semantics as `bwrap` (and a clean environment) but no isolation at all:
 * commands see the host filesystem and network and are not resource-limited.
 */
export class LocalSandboxProvider extends DirectoryProvider {
  readonly name = 'local' as const;

  constructor(private readonly options: LocalProviderOptions) {
    super(new SandboxStore(options.rootDir, 'local', options.defaults ?? DEFAULT_SANDBOX_SETTINGS));
    options.logger.warn(
      'local sandbox provider: commands run on the host with no isolation (development only)',
      { rootDir: options.rootDir },
    );
  }

  protected prepare(): Promise<void> {
    return Promise.resolve();
  }

  protected oneShotSpawn(
    record: SandboxRecord,
    paths: SandboxPaths,
    argv: readonly string[],
  ): Promise<OneShotSpawn> {
    const [file, ...args] = argv;
    if (!file) throw sandboxError('invalid_input', 'a one-shot command needs a program');
    const env = safeEnvironment({ home: paths.home, user: 'agent', extra: record.env });
    return Promise.resolve({
      file,
      args,
      cwd: paths.workspace,
      env: { ...env, ...HOOKLESS_GIT_ENV, GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  }

  protected async startSession(record: SandboxRecord, paths: SandboxPaths): Promise<OpenedSession> {
    const timing = this.options.timing ?? DEFAULT_SESSION_TIMING;
    const stateDir = join(paths.root, `.session-${randomBytes(6).toString('hex')}`);
    const session = await BashSession.start({
      file: this.options.bashPath ?? '/bin/bash',
      args: driverArguments({
        stateDir,
        workdir: paths.workspace,
        killGraceSeconds: timing.killGraceMs / 1000,
        // Never on the host: the sweep kills every process the user can signal.
        sweepOnTimeout: false,
      }),
      env: safeEnvironment({ home: paths.home, user: 'agent', extra: record.env }),
      defaultTimeoutMs: record.defaultTimeoutMs,
      maxTimeoutMs: (this.options.defaults ?? DEFAULT_SANDBOX_SETTINGS).maxTimeoutMs,
      outputLimitBytes: record.outputLimitBytes,
      ...timing,
    });
    session.onExit(() => rm(stateDir, { recursive: true, force: true }));
    const roots = { host: paths.workspace, inner: paths.workspace };
    return { session, files: new WorkdirFiles({ roots }), workdir: paths.workspace };
  }
}
