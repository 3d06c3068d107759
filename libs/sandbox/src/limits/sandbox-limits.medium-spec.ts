import { createHook } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import { existsSync, statfsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnvironment } from '@caravel/testing';
import { BwrapSandboxProvider, bwrapAvailable } from '../providers/bwrap.provider.js';
import type { Sandbox, SandboxLimits } from '../sandbox.types.js';
import { detectCgroups } from './cgroup-detect.js';
import { IN_MEMORY_STATFS } from './disk-usage.js';

const MiB = 1024 ** 2;
const MINUTE = 60_000;
const missing = !bwrapAvailable();
if (missing && !testEnvironment.CI) {
  process.stdout.write('skipped: bubblewrap is not installed (apt-get install bubblewrap)\n');
}
const describeBwrap = missing && !testEnvironment.CI ? describe.skip : describe;
// Process and memory limits need a cgroup (root, or a delegated v2 cgroup); without one the tests
// that read its counters say why and skip, the others (disk, /tmp) run on rlimits and the watch.
const cgroup = await detectCgroups({ mode: 'auto', systemdRunPath: '/usr/bin/systemd-run' });
if (!cgroup.backend) process.stdout.write(`skipped: no usable cgroup here: ${cgroup.reason}\n`);
const itWithCgroups = cgroup.backend ? it : it.skip;

describeBwrap('bwrap sandbox limits', () => {
  let rootDir: string;
  let provider: BwrapSandboxProvider;
  let other: Sandbox;
  /** What the provider told its operator (the watch's stops among it). */
  const warnings: string[] = [];

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'caravel-limits-'));
    // bubblewrap runs as an unprivileged uid that must traverse it.
    await chmod(rootDir, 0o755);
    provider = new BwrapSandboxProvider({
      rootDir,
      limits: { logger: { warn: (message) => void warnings.push(message) } },
      timing: { killGraceMs: 1_000, startTimeoutMs: 15_000, watchdogSlackMs: 5_000 },
    });
    other = await provider.create({ id: 'bystander' });
  }, MINUTE);

  afterAll(async () => {
    await provider?.delete('bystander').catch(() => undefined);
    await rm(rootDir, { recursive: true, force: true });
  });

  /** A sandbox with small limits, deleted (cgroup and all) once `body` is done. */
  async function withSandbox(
    limits: Partial<SandboxLimits>,
    body: (box: Sandbox) => Promise<void>,
  ): Promise<void> {
    const box = await provider.create({ limits });
    try {
      await body(box);
    } finally {
      await provider.delete(box.id);
    }
  }

  /** The other sandbox runs a command normally, and so does the host. */
  async function othersUnaffected(): Promise<void> {
    const result = await other.exec('echo bystander ok');
    expect(result).toMatchObject({ exitCode: 0, output: 'bystander ok\n' });
    expect(spawnSync('true').status).toBe(0);
  }

  itWithCgroups(
    'stops a fork bomb at the process limit, says so, and the session carries on',
    async () => {
      await withSandbox({ maxProcesses: 64 }, async (box) => {
        const bomb = box.exec('bomb() { bomb | bomb & }; bomb; sleep 60', {
          timeoutMs: 2 * MINUTE,
        });
        await othersUnaffected();
        const result = await bomb;
        expect(result.timedOut).toBe(false);
        expect(result.output).toContain("the sandbox's process limit (64 processes and threads)");
        expect(result.output).toContain('every background process were stopped');
        expect(warnings).toContainEqual(
          expect.stringMatching(
            new RegExp(
              `^sandbox ${box.id}: past its processes limit, [1-9]\\d* of its processes stopped$`,
            ),
          ),
        );
        const after = await box.exec('echo survived; ls /proc | grep -c "^[0-9]"');
        const [line, count] = after.output.split('\n');
        expect(line).toBe('survived');
        // Left: bubblewrap's init, the driver, this command and its pipeline; no bomb.
        expect(Number(count)).toBeLessThan(10);
        await othersUnaffected();
      });
    },
    3 * MINUTE,
  );

  itWithCgroups(
    'has the kernel end a memory hog at the memory limit, and says so',
    async () => {
      await withSandbox({ maxMemoryBytes: 128 * MiB, maxTmpBytes: 16 * MiB }, async (box) => {
        const hog = box.exec('tail /dev/zero', { timeoutMs: 2 * MINUTE });
        await othersUnaffected();
        const result = await hog;
        expect(result.timedOut).toBe(false);
        expect(result.exitCode).toBe(137);
        expect(result.output).toContain("the sandbox's memory limit (128 MiB, /tmp included)");
        expect((await box.exec('echo alive')).output).toBe('alive\n');
      });
    },
    3 * MINUTE,
  );

  it(
    'stops a command that fills the workspace past its limit; cleaning up is never stopped',
    async () => {
      await withSandbox({ maxWorkspaceBytes: 64 * MiB }, async (box) => {
        // Unbounded on purpose (1 MiB every 20 ms): only the watchdog ends it before its timeout.
        const filler = box.exec(
          'i=0; while :; do head -c 1048576 /dev/zero > fill.$i; i=$((i + 1)); sleep 0.02; done',
          { timeoutMs: 2 * MINUTE },
        );
        await othersUnaffected();
        const result = await filler;
        expect(result.timedOut).toBe(false);
        expect(result.output).toMatch(
          /the workspace and home use [\d.]+ MiB of disk, over the sandbox's 64 MiB limit; the command and every background process were stopped/,
        );
        expect(warnings).toContainEqual(
          expect.stringMatching(new RegExp(`^sandbox ${box.id}: past its workspace limit, `)),
        );
        const usage = await box.exec('du -sm /workspace | cut -f1');
        expect(Number(usage.output.trim())).toBeLessThan(1024);
        const cleanup = await box.exec('rm -f fill.* && echo cleaned');
        expect(cleanup.output).toBe('cleaned\n');
        await othersUnaffected();
      });
    },
    3 * MINUTE,
  );

  it(
    'stops a background writer that fills the workspace between commands',
    async () => {
      await withSandbox({ maxWorkspaceBytes: 32 * MiB }, async (box) => {
        await box.exec(
          '(i=0; while :; do head -c 1048576 /dev/zero > bg.$i; i=$((i + 1)); sleep 0.02; done) >/dev/null 2>&1 &',
        );
        // The writer runs on its own; the next command's result says what the watchdog did. The
        // watch's stop ends this command too, so it waits for that event, not for a fixed time (a
        // 5 s sleep ran out first on a loaded CI machine, where the writer and the disk walks slow).
        const result = await box.exec('sleep 55; echo waited', { timeoutMs: MINUTE });
        expect(result.output).toMatch(/over the sandbox's 32 MiB limit/);
        const files = await box.exec('ls | grep -c "^bg\\." ; sleep 2; ls | grep -c "^bg\\."');
        const [before, after] = files.output.trim().split('\n');
        expect(after).toBe(before);
      });
    },
    3 * MINUTE,
  );

  it(
    'caps /tmp at its size and says when it is full; removing files there works',
    async () => {
      await withSandbox({ maxTmpBytes: 16 * MiB }, async (box) => {
        const size = await box.exec('df -B1 --output=size /tmp | tail -n 1');
        expect(Number(size.output.trim())).toBe(16 * MiB);
        const result = await box.exec('head -c 100000000 /dev/zero > /tmp/big; echo "status $?"');
        // The command's own output survives: it is kept on the driver's tmpfs, not in /tmp.
        expect(result.output).toContain('No space left on device');
        expect(result.output).toContain('status 1');
        expect(result.output).toContain('/tmp is full (its limit is 16 MiB)');
        await othersUnaffected();
        const cleanup = await box.exec('rm /tmp/big && echo cleaned');
        expect(cleanup.output).toBe('cleaned\n');
      });
    },
    3 * MINUTE,
  );

  itWithCgroups(
    'holds a one-shot command to the same process limit as the session',
    async () => {
      await withSandbox({ maxProcesses: 64 }, async (box) => {
        // 100 sleepers fit under the rlimit backstop (128), so only the cgroup can refuse them.
        const script = 'for i in $(seq 100); do sleep 5 & done; wait';
        const outcome = await provider.runOneShot(box.id, ['/bin/bash', '-c', script], {
          outputFile: join(rootDir, `one-shot-${box.id}.out`),
          maxOutputBytes: 1024,
          timeoutMs: MINUTE,
        });
        expect(outcome.stderr).toContain('Resource temporarily unavailable');
      });
    },
    2 * MINUTE,
  );

  it(
    "checks a command's limits without a file system call on the thread pool",
    async () => {
      // The counters, /proc and the statfs of /tmp and of a local workspace are kernel memory,
      // read in place; each trip through the thread pool cost a command 0.1-0.3 ms, in turn.
      const counts: number[] = [];
      let requests = 0;
      const hook = createHook({
        init: (_id, type) => {
          if (type.startsWith('FSREQ')) requests += 1;
        },
      });
      await other.exec('true');
      hook.enable();
      try {
        for (let round = 0; round < 5; round += 1) {
          requests = 0;
          expect(await other.exec('true')).toMatchObject({ exitCode: 0, output: '' });
          counts.push(requests);
        }
      } finally {
        hook.disable();
      }
      // The fewest: the watch's once-a-second look may land inside a round trip. A workspace on a
      // network filesystem keeps its statfs on the thread pool.
      const localWorkspace = IN_MEMORY_STATFS.has(statfsSync(rootDir).type);
      expect(Math.min(...counts)).toBe(localWorkspace ? 0 : 1);
    },
    MINUTE,
  );

  itWithCgroups(
    'gives each sandbox its own cgroup with its limits, removed when the sandbox is deleted',
    async () => {
      const box = await provider.create({
        limits: { maxProcesses: 77, maxMemoryBytes: 200 * MiB },
      });
      const dirs = await provider.limiter.cgroupDirs(box.id);
      expect(dirs.length).toBeGreaterThan(0);
      const files = ['pids.max', 'memory.max', 'memory.limit_in_bytes'];
      const values: string[] = [];
      for (const dir of dirs) {
        for (const file of files.filter((name) => existsSync(join(dir, name)))) {
          values.push((await readFile(join(dir, file), 'utf8')).trim());
        }
      }
      expect(values).toEqual(expect.arrayContaining(['77', String(200 * MiB)]));
      const procs = async () =>
        (await readFile(join(dirs[0] ?? '', 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean);
      const sessionOnly = await procs();
      expect(sessionOnly.length).toBeGreaterThan(0);
      // The first file operation starts the file helper: in the same cgroup as the session.
      await box.writeFile('note.txt', 'x');
      expect((await procs()).length).toBeGreaterThan(sessionOnly.length);
      await provider.delete(box.id);
      expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
      const bystander = await provider.limiter.cgroupDirs('bystander');
      expect(bystander.filter((dir) => existsSync(dir))).toEqual(bystander);
    },
    MINUTE,
  );
});
