import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_SANDBOX_SETTINGS } from '../providers/sandbox-store.js';
import type { SandboxLimits } from '../sandbox.types.js';
import { parseCgroupLayout } from './cgroup-mounts.js';
import { CgroupV1Backend } from './cgroup-v1.js';
import { CgroupV2Backend } from './cgroup-v2.js';
import { formatBytes, limitNote } from './limit-notes.js';
import { SandboxLimiter, ulimitCommand } from './sandbox-limiter.js';

const MiB = 1024 ** 2;
const limits: SandboxLimits = {
  ...DEFAULT_SANDBOX_SETTINGS.limits,
  maxProcesses: 64,
  maxMemoryBytes: 128 * MiB,
  maxCpus: 1.5,
};

describe('parseCgroupLayout', () => {
  it('reads v1 hierarchies by controller and the unified mount beside them', () => {
    const mountinfo = [
      '30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
      '31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
      '34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
      '38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
      '40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
    ].join('\n');
    const layout = parseCgroupLayout(mountinfo, '4:memory:/a/b\n0::/\n');
    expect(layout.unified).toEqual({
      mountPoint: '/sys/fs/cgroup/unified',
      root: '/',
      ownPath: '/',
    });
    expect(layout.v1.get('cpu')?.mountPoint).toBe('/sys/fs/cgroup/cpu,cpuacct');
    expect(layout.v1.get('pids')?.mountPoint).toBe('/sys/fs/cgroup/pids');
    expect(layout.v1.has('devices')).toBe(false);
  });

  it("finds this process's v2 cgroup relative to a mount of a sub-tree (a container)", () => {
    const mountinfo =
      '700 600 0:30 /kubepods/pod1 /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw,nsdelegate';
    const inside = parseCgroupLayout(mountinfo, '0::/kubepods/pod1/app\n');
    expect(inside.unified).toEqual({
      mountPoint: '/sys/fs/cgroup',
      root: '/kubepods/pod1',
      ownPath: '/app',
    });
    const elsewhere = parseCgroupLayout(mountinfo, '0::/system.slice/x.service\n');
    expect(elsewhere.unified?.ownPath).toBeUndefined();
  });
});

describe('cgroup backends', () => {
  it('v2: one cgroup per sandbox with pids.max, memory.max, no swap and a CPU quota', () => {
    const backend = new CgroupV2Backend(
      '/sys/fs/cgroup/caravel',
      { pids: true, memory: true, swap: true, cpu: true },
      'test',
    );
    expect(backend.dirs('sandbox-a')).toEqual(['/sys/fs/cgroup/caravel/sandbox-a']);
    expect(backend.enterSteps('sandbox-a', limits)).toEqual([
      { op: 'mkdir', path: '/sys/fs/cgroup/caravel/sandbox-a' },
      { op: 'write', path: '/sys/fs/cgroup/caravel/sandbox-a/pids.max', value: '64' },
      {
        op: 'write',
        path: '/sys/fs/cgroup/caravel/sandbox-a/memory.max',
        value: String(128 * MiB),
      },
      { op: 'write', path: '/sys/fs/cgroup/caravel/sandbox-a/memory.swap.max', value: '0' },
      { op: 'write', path: '/sys/fs/cgroup/caravel/sandbox-a/cpu.max', value: '150000 100000' },
      { op: 'join', path: '/sys/fs/cgroup/caravel/sandbox-a/cgroup.procs' },
    ]);
  });

  it('v2 without the cpu controller delegated leaves CPU alone', () => {
    const backend = new CgroupV2Backend(
      '/cg',
      { pids: true, memory: true, swap: false, cpu: false },
      'x',
    );
    expect(backend.enforces).toEqual({ processes: true, memory: true, cpu: false });
    expect(backend.enterSteps('s', limits).map((step) => step.path)).not.toContain('/cg/s/cpu.max');
  });

  it('v1: pids, memory (limit written around memsw, which may not be below it) and cpu hierarchies', () => {
    const backend = new CgroupV1Backend({
      pids: '/cg/pids/caravel',
      memory: '/cg/memory/caravel',
      cpu: '/cg/cpu/caravel',
      memsw: true,
    });
    const steps = backend.enterSteps('s', limits);
    const memory = steps.filter((step) => step.path.startsWith('/cg/memory/caravel/s/memory'));
    expect(memory.map((step) => [step.op, step.path.split('/').pop()])).toEqual([
      ['try', 'memory.limit_in_bytes'],
      ['write', 'memory.memsw.limit_in_bytes'],
      ['write', 'memory.limit_in_bytes'],
    ]);
    expect(steps).toContainEqual({
      op: 'write',
      path: '/cg/cpu/caravel/s/cpu.cfs_quota_us',
      value: '150000',
    });
    expect(steps.filter((step) => step.op === 'join').map((step) => step.path)).toEqual([
      '/cg/pids/caravel/s/cgroup.procs',
      '/cg/memory/caravel/s/cgroup.procs',
      '/cg/cpu/caravel/s/cgroup.procs',
    ]);
  });
});

describe('SandboxLimiter', () => {
  let base: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'caravel-fake-cgroup-'));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('starts a process inside its cgroup: the wrapper writes the limits, then its own pid, then execs', async () => {
    const backend = new CgroupV2Backend(
      base,
      { pids: true, memory: true, swap: false, cpu: true },
      'x',
    );
    const limiter = new SandboxLimiter({ backend }, '/srv/sandboxes');
    const name = limiter.cgroupName('thread-1');
    expect(name).toMatch(/^sandbox-thread-1-[0-9a-f]{8}$/);
    const command = await limiter.confine('thread-1', limits, {
      file: '/bin/sh',
      args: ['-c', 'echo "$$"'],
    });
    expect(command.file).toBe('/bin/sh');
    const run = spawnSync(command.file, command.args, { encoding: 'utf8' });
    expect(run.status).toBe(0);
    const dir = join(base, name);
    expect(await readFile(join(dir, 'cgroup.procs'), 'utf8')).toBe(run.stdout);
    expect(await readFile(join(dir, 'pids.max'), 'utf8')).toBe('64\n');
    expect(await readFile(join(dir, 'cpu.max'), 'utf8')).toBe('150000 100000\n');
  });

  it('refuses to start the process when its cgroup cannot be entered', async () => {
    // Nothing can be made under /proc: every try fails, and the command never runs.
    const blocked = new CgroupV2Backend(
      '/proc/caravel-no-such-dir',
      { pids: true, memory: true, swap: false, cpu: false },
      'x',
    );
    const limiter = new SandboxLimiter({ backend: blocked }, '/srv/sandboxes');
    const command = await limiter.confine('a', limits, { file: '/bin/echo', args: ['ran'] });
    const run = spawnSync(command.file, command.args, { encoding: 'utf8' });
    expect(run.status).toBe(125);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('caravel: cannot apply the sandbox limits (mkdir ');
  });

  it('leaves the process as it is without cgroups, with every limit as an rlimit', async () => {
    const limiter = new SandboxLimiter({ backend: null }, '/srv/sandboxes');
    const command = { file: '/usr/bin/bwrap', args: ['--x'], uid: 65534, gid: 65534 };
    expect(await limiter.confine('a', limits, command)).toBe(command);
    expect(await limiter.ulimits(limits)).toEqual({
      processes: 64,
      addressSpaceKiB: 128 * 1024,
      fileSizeKiB: limits.maxFileBytes / 1024,
      openFiles: limits.maxOpenFiles,
    });
  });

  it('with cgroups, keeps ulimit -u as a backstop above pids.max and drops the address-space rlimit', async () => {
    const backend = new CgroupV1Backend({ pids: '/p', memory: '/m', memsw: false });
    const limiter = new SandboxLimiter({ backend }, '/srv/sandboxes');
    const ulimits = await limiter.ulimits(limits);
    expect(ulimits).toEqual({
      processes: 128,
      fileSizeKiB: limits.maxFileBytes / 1024,
      openFiles: limits.maxOpenFiles,
    });
    expect(ulimitCommand(ulimits)).toBe(
      `ulimit -S -H -u 128 -f ${limits.maxFileBytes / 1024} -n ${limits.maxOpenFiles}`,
    );
  });

  it('names two providers’ cgroups for one sandbox id apart', () => {
    const one = new SandboxLimiter({ backend: null }, '/srv/a');
    const two = new SandboxLimiter({ backend: null }, '/srv/b');
    expect(one.cgroupName('x')).not.toBe(two.cgroupName('x'));
  });
});

describe('limit notes', () => {
  it('names the limit, its value and what to do', () => {
    expect(formatBytes(64 * MiB)).toBe('64 MiB');
    expect(formatBytes(1.5 * 1024 * MiB)).toBe('1.5 GiB');
    expect(limitNote({ kind: 'memory', limitBytes: 128 * MiB, kills: 1 })).toContain(
      'memory limit (128 MiB, /tmp included) was reached and the kernel killed 1 process.',
    );
    expect(limitNote({ kind: 'processes', limit: 64, refusals: 3 })).toContain(
      'process limit (64 processes and threads) was reached and 3 new processes were refused',
    );
    expect(
      limitNote({ kind: 'workspace', limitBytes: 64 * MiB, usedBytes: 90 * MiB, stopped: true }),
    ).toContain("use 90 MiB of disk, over the sandbox's 64 MiB limit");
    expect(limitNote({ kind: 'tmp', limitBytes: 16 * MiB })).toContain(
      '/tmp is full (its limit is 16 MiB)',
    );
  });
});
