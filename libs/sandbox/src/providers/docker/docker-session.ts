import type Docker from 'dockerode';
import type { FileOwner } from '../../files/workdir-files.js';
import { driverArguments, type DriverParameters } from '../../session/driver-script.js';
import { DOCKER_WORKDIR, environmentList } from './docker-container-spec.js';
import { DockerExecProcess } from './docker-exec-process.js';

/** What one session's driver exec needs. */
export interface DriverExecOptions {
  readonly sessionId: string;
  readonly bashPath: string;
  readonly user: FileOwner;
  readonly env: Readonly<Record<string, string>>;
  readonly killGraceSeconds: number;
  /** Where the session starts (default /workspace). */
  readonly workdir?: string;
  /** A writable directory for the driver's state and pid file (default /tmp). */
  readonly stateRoot?: string;
  /** Rlimits the driver sets for its commands (the kubernetes provider's file size and files). */
  readonly ulimits?: DriverParameters['ulimits'];
}

/**
 * Records the driver's pid (in the container's pid namespace) before becoming the driver, so the
 * session can be ended from outside: docker has no API to signal one exec.
 */
const PID_WRAPPER = 'printf %s "$$" > "$1" && shift && exec "$@"';

/**
 * Kills the driver and the process group of the command it is running (its pid is in the
 * driver's state directory).
 */
const KILL_SCRIPT =
  'kill -KILL "$(cat "$1")" 2>/dev/null; p=$(cat "$2/pid" 2>/dev/null) && kill -KILL -- "-$p" 2>/dev/null; exit 0';

/**
 * The command lines of a session: `cmd` starts the framed driver behind the pid wrapper (the
 * exec's `Cmd`), `killCmd` ends it and its running command from a second exec.
 */
export function driverExecCommand(options: DriverExecOptions): {
  cmd: string[];
  killCmd: string[];
} {
  const stateRoot = options.stateRoot ?? '/tmp';
  const stateDir = `${stateRoot}/.caravel/${options.sessionId}`;
  const pidFile = `${stateRoot}/.caravel-${options.sessionId}.pid`;
  const driver = driverArguments({
    stateDir,
    workdir: options.workdir ?? DOCKER_WORKDIR,
    killGraceSeconds: options.killGraceSeconds,
    // `kill -1` in a container would also kill its main process; the process group is enough.
    sweepOnTimeout: false,
    ...(options.ulimits ? { ulimits: options.ulimits } : {}),
  });
  const cmd = [
    options.bashPath,
    '-c',
    PID_WRAPPER,
    'caravel-exec',
    pidFile,
    options.bashPath,
    ...driver,
  ];
  const killCmd = [options.bashPath, '-c', KILL_SCRIPT, 'caravel-kill', pidFile, stateDir];
  return { cmd, killCmd };
}

/** One exec with its standard input attached (a session's driver, the file helper). */
export interface AttachedExecOptions {
  readonly cmd: readonly string[];
  readonly user: FileOwner;
  readonly env: Readonly<Record<string, string>>;
  /** Where it starts (default /workspace). */
  readonly workdir?: string;
}

/** Starts `cmd` as a `docker exec` with stdin attached and no TTY, seen as a session process. */
export async function startAttachedExec(
  container: Docker.Container,
  options: AttachedExecOptions,
): Promise<DockerExecProcess> {
  const exec = await container.exec({
    Cmd: [...options.cmd],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    Env: environmentList(options.env),
    User: `${options.user.uid}:${options.user.gid}`,
    WorkingDir: options.workdir ?? DOCKER_WORKDIR,
  });
  const stream = await exec.start({ hijack: true, stdin: true });
  return new DockerExecProcess(stream, async () => (await exec.inspect()).ExitCode);
}

/**
 * Starts the session driver as a `docker exec` with stdin attached, and returns it as a session
 * process plus the function that ends it (a second exec that kills it, then a disconnect).
 */
export async function startDriverExec(
  container: Docker.Container,
  options: DriverExecOptions,
): Promise<{ driver: DockerExecProcess; terminate: () => void }> {
  const { cmd, killCmd } = driverExecCommand(options);
  const driver = await startAttachedExec(container, {
    cmd,
    user: options.user,
    env: options.env,
    ...(options.workdir ? { workdir: options.workdir } : {}),
  });
  const user = `${options.user.uid}:${options.user.gid}`;
  const terminate = (): void => {
    void killDriver(container, user, killCmd)
      .catch(() => undefined)
      .finally(() => driver.disconnect());
  };
  return { driver, terminate };
}

async function killDriver(container: Docker.Container, user: string, cmd: string[]): Promise<void> {
  const exec = await container.exec({
    Cmd: cmd,
    User: user,
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
    stream.resume();
  });
}
