import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ConfinedFs } from '../../files/confined-fs.js';
import { sandboxErrorReason } from '../../sandbox.errors.js';
import { BashSession } from '../../session/bash-session.js';
import { containerFileHelperCommand } from '../container-sandbox.js';
import { safeEnvironment } from '../safe-env.js';
import { DockerExecProcess } from './docker-exec-process.js';
import { driverExecCommand } from './docker-session.js';
import { dockerStreamFrame } from './docker-stream-demux.js';

/**
 * Stands in for the engine's side of a `docker exec` attach: the exec's command line runs as a
 * local process, and its stdout and stderr come back multiplexed exactly as the engine sends them.
 * Everything from the demuxer up (the pid wrapper, the driver, BashSession) is the real code.
 */
function multiplexedExec(cmd: string[], env: Record<string, string>) {
  const [file = 'bash', ...args] = cmd;
  const child: ChildProcess = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const stream = new Duplex({
    read: () => undefined,
    write: (chunk: Buffer, _encoding, done) => {
      child.stdin?.write(chunk, done);
    },
    final: (done) => {
      child.stdin?.end();
      done();
    },
  });
  // Split stdout into odd-sized frames, as the engine may.
  child.stdout?.on('data', (chunk: Buffer) => {
    for (let at = 0; at < chunk.length; at += 777) {
      stream.push(dockerStreamFrame('stdout', chunk.subarray(at, at + 777)));
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => stream.push(dockerStreamFrame('stderr', chunk)));
  child.once('close', () => stream.push(null));
  // A dropped connection: the engine closes the exec's stdin.
  stream.once('close', () => child.stdin?.end());
  return { stream, exited, child };
}

const timing = { killGraceMs: 500, startTimeoutMs: 15_000, watchdogSlackMs: 5_000 };
let workdir: string;
let session: BashSession | undefined;

async function start() {
  workdir = await mkdtemp(join(tmpdir(), 'caravel-docker-exec-'));
  const sessionId = `t${Date.now().toString(36)}`;
  const command = driverExecCommand({
    sessionId,
    bashPath: '/bin/bash',
    user: { uid: 0, gid: 0 },
    env: {},
    killGraceSeconds: timing.killGraceMs / 1000,
    workdir,
    stateRoot: workdir,
  });
  const env = safeEnvironment({ home: workdir, user: 'agent' });
  const exec = multiplexedExec(command.cmd, env);
  const driver = new DockerExecProcess(exec.stream, () => exec.exited);
  const kill = () => void spawnSync(command.killCmd[0] ?? 'bash', command.killCmd.slice(1));
  session = await BashSession.attach(driver, kill, {
    defaultTimeoutMs: 10_000,
    maxTimeoutMs: 60_000,
    outputLimitBytes: 10_000,
    ...timing,
  });
  return { session, kill, exec, driver, commandPid: join(workdir, '.caravel', sessionId, 'pid') };
}

afterEach(async () => {
  await session?.close();
  session = undefined;
  await rm(workdir, { recursive: true, force: true });
});

describe('the session driver over a multiplexed docker exec stream', () => {
  it('runs commands with merged output, exit codes and persistent state', async () => {
    const { session } = await start();
    const first = await session.run('cd /tmp && export X=1 && echo out && echo err >&2; exit 4');
    expect(first).toMatchObject({ exitCode: 4, output: 'out\nerr\n' });
    expect((await session.run('pwd; echo "$X"')).output).toBe('/tmp\n1\n');
  });

  it('survives a timeout and caps large output split across many frames', async () => {
    const { session } = await start();
    const slow = await session.run('echo begun; sleep 30', { timeoutMs: 300 });
    expect(slow).toMatchObject({ timedOut: true });
    const big = await session.run('head -c 200000 /dev/zero | tr "\\0" b');
    expect(big).toMatchObject({ exitCode: 0, truncated: true, outputBytes: 200_000 });
    expect(big.output).toContain('[... 190000 bytes of output elided ...]');
  });

  it('is reported dead once the kill command ends its driver', async () => {
    const { session, kill, driver, commandPid } = await start();
    const hanging = session.run('sleep 60', { timeoutMs: 50_000 });
    // Wait until the driver has recorded the command's pid, so the kill takes the command too.
    // The driver empties the file before each command and writes the pid after: an empty read
    // is "not yet" (read as 0 it named this process's own group, alive forever: the loop below
    // then never ended and kept Jest from exiting, which hung CI for 76 minutes).
    const recordedPid = () =>
      readFile(commandPid, 'utf8').then(
        (text) => Number(text.trim()),
        () => 0,
      );
    let sleeper = 0;
    while (!(Number.isSafeInteger(sleeper) && sleeper > 1)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      sleeper = await recordedPid();
    }
    kill();
    expect(
      await hanging.then(
        () => 'resolved',
        (error: unknown) => sandboxErrorReason(error),
      ),
    ).toBe('session_dead');
    expect(driver.exitCode).toBe(255);
    expect(session.alive).toBe(false);
    // The running command's process group went with it (polled: reaping takes a moment).
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (alive(sleeper)) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(sleeper)).toBe(false);
  }, 30_000);
});

describe('the file helper over a multiplexed docker exec stream', () => {
  /** A `ConfinedFs` whose helper is an exec of `containerFileHelperCommand` with this node. */
  const helperFs = (node: string) =>
    new ConfinedFs((nodeArgs) => {
      const exec = multiplexedExec(containerFileHelperCommand('/bin/bash', node, nodeArgs), {
        PATH: '/usr/local/bin:/usr/bin:/bin',
      });
      const helper = new DockerExecProcess(exec.stream, () => exec.exited);
      return Promise.resolve({ process: helper, end: () => helper.disconnect() });
    });

  it('serves reads, writes and listings through the exec, answers split across frames', async () => {
    workdir = await mkdtemp(join(tmpdir(), 'caravel-docker-files-'));
    const fs = helperFs('node');
    try {
      const big = Buffer.alloc(100_000, 'b');
      await fs.writeFile(join(workdir, 'deep', 'big.txt'), big);
      expect((await fs.readFile(join(workdir, 'deep', 'big.txt'), 200_000)).equals(big)).toBe(true);
      expect(await readFile(join(workdir, 'deep', 'big.txt'), 'utf8')).toBe(big.toString());
      expect(await fs.readdir(join(workdir, 'deep'))).toEqual([
        { name: 'big.txt', type: 'file', size: 100_000 },
      ]);
    } finally {
      await fs.close();
    }
  });

  it('fails closed, naming node, when the image has none', async () => {
    workdir = await mkdtemp(join(tmpdir(), 'caravel-docker-files-'));
    const fs = helperFs('/nonexistent/node');
    const failure = await fs.lstat(workdir).then(
      () => null,
      (error: unknown) => error,
    );
    expect(sandboxErrorReason(failure)).toBe('unsupported');
    expect(String((failure as Error).message)).toContain(
      'file operations need node in the sandbox image: /nonexistent/node was not found',
    );
    await fs.close();
  });
});
