import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { access, constants, mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CgroupBackend } from './cgroup-backend.js';
import {
  cgroupDir,
  readCgroupLayout,
  type CgroupLayout,
  type CgroupMount,
  type CgroupSources,
} from './cgroup-mounts.js';
import { CgroupV1Backend } from './cgroup-v1.js';
import { CgroupV2Backend, type V2Files } from './cgroup-v2.js';

/**
 * How sandboxes get their cgroup: `auto` tries, in order, a v2 cgroup (the configured parent, a
 * scope systemd delegates, or this process's own cgroup), then v1 hierarchies; `none` (or nothing
 * usable) leaves rlimits alone.
 */
export const CGROUP_MODES = ['auto', 'v2', 'v1', 'systemd', 'none'] as const;

export type CgroupMode = (typeof CGROUP_MODES)[number];

/** The cgroup each sandbox's cgroups are made under when no parent is configured (v1). */
export const DEFAULT_V1_PARENT = '/caravel-sandboxes';
const V2_CHILD = 'caravel-sandboxes';
const V2_SELF = 'caravel-broker';
const CONTROLLERS = ['pids', 'memory', 'cpu'] as const;

export interface CgroupDetectOptions {
  readonly mode: CgroupMode;
  /** The hierarchy path sandbox cgroups are made under (v2: delegated to this process). */
  readonly parent?: string;
  readonly systemdRunPath: string;
  /** Where this process's cgroup layout is read (tests). */
  readonly sources?: CgroupSources;
  /** Whether systemd is the service manager (default: /run/systemd/system exists). */
  readonly systemdRunning?: boolean;
}

/** The hierarchy to use, or why none is usable. */
export type CgroupDetection =
  { readonly backend: CgroupBackend } | { readonly backend: null; readonly reason: string };

type Attempt = () => Promise<CgroupBackend | string>;

const detections = new Map<string, Promise<CgroupDetection>>();

/**
 * Finds the cgroup hierarchy sandboxes are limited with (see `CgroupMode`). Once per process and
 * set of options: detection may move this process into a leaf cgroup or start a systemd scope.
 */
export function detectCgroups(options: CgroupDetectOptions): Promise<CgroupDetection> {
  const key = JSON.stringify([
    options.mode,
    options.parent,
    options.systemdRunPath,
    options.sources,
  ]);
  let detection = detections.get(key);
  if (!detection) {
    detection = detect(options);
    detections.set(key, detection);
  }
  return detection;
}

async function detect(options: CgroupDetectOptions): Promise<CgroupDetection> {
  if (options.mode === 'none') return { backend: null, reason: 'cgroups are turned off' };
  const layout = await readCgroupLayout(options.sources).catch(() => ({ v1: new Map() }));
  const attempts = attemptsFor(options, layout);
  const reasons: string[] = [];
  for (const attempt of attempts) {
    const outcome = await attempt().catch((error: unknown) =>
      error instanceof Error ? error.message : String(error),
    );
    if (typeof outcome !== 'string') return { backend: outcome };
    reasons.push(outcome);
  }
  return { backend: null, reason: reasons.join('; ') };
}

function attemptsFor(options: CgroupDetectOptions, layout: CgroupLayout): Attempt[] {
  const unified = layout.unified;
  const v2: Attempt[] = [];
  if (!unified) v2.push(() => Promise.resolve('no cgroup2 hierarchy is mounted'));
  else if (options.parent !== undefined) {
    const parent = options.parent;
    v2.push(() => prepareV2Base(unified, parent, 'the configured parent'));
  } else {
    if (options.mode !== 'v2') v2.push(() => systemdScope(unified, options));
    if (options.mode !== 'systemd') v2.push(() => ownCgroup(unified));
  }
  const v1: Attempt[] = [() => prepareV1(layout, options.parent ?? DEFAULT_V1_PARENT)];
  switch (options.mode) {
    case 'v1':
      return v1;
    case 'v2':
    case 'systemd':
      return v2;
    case 'auto':
    case 'none':
      return [...v2, ...v1];
  }
}

async function readSet(path: string): Promise<Set<string>> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return new Set(text.split(/\s+/).filter(Boolean));
}

/** Enables pids, memory and cpu for a cgroup's children where its parent offers them. */
async function enableControllers(dir: string): Promise<Set<string>> {
  const available = await readSet(join(dir, 'cgroup.controllers'));
  const enabled = await readSet(join(dir, 'cgroup.subtree_control'));
  for (const name of CONTROLLERS) {
    if (available.has(name) && !enabled.has(name)) {
      await writeFile(join(dir, 'cgroup.subtree_control'), `+${name}`).catch(() => undefined);
    }
  }
  return readSet(join(dir, 'cgroup.subtree_control'));
}

/**
 * Makes `path` (a hierarchy path) the base of sandbox cgroups: created if need be, controllers
 * enabled from the mount down to it, then a probe child tells which limit files exist.
 */
async function prepareV2Base(
  mount: CgroupMount,
  path: string,
  how: string,
): Promise<CgroupBackend | string> {
  const base = cgroupDir(mount, path);
  await mkdir(base, { recursive: true });
  const parts = path.split('/').filter(Boolean);
  for (let depth = 0; depth <= parts.length; depth += 1) {
    await enableControllers(cgroupDir(mount, parts.slice(0, depth).join('/')));
  }
  const enabled = await readSet(join(base, 'cgroup.subtree_control'));
  const missing = ['pids', 'memory'].filter((name) => !enabled.has(name));
  if (missing.length > 0) {
    return `cgroup v2 ${base}: the ${missing.join(' and ')} controller${missing.length > 1 ? 's are' : ' is'} not delegated to it`;
  }
  const probe = join(base, `caravel-probe-${process.pid}`);
  await mkdir(probe, { recursive: true });
  try {
    const files: V2Files = {
      pids: existsSync(join(probe, 'pids.max')),
      memory: existsSync(join(probe, 'memory.max')),
      swap: existsSync(join(probe, 'memory.swap.max')),
      cpu: existsSync(join(probe, 'cpu.max')),
    };
    return new CgroupV2Backend(base, files, how);
  } finally {
    await rmdir(probe).catch(() => undefined);
  }
}

/**
 * This process's own v2 cgroup, when it was delegated to it (a container's cgroup namespace, a
 * systemd unit with Delegate=yes): the process moves itself into a leaf (`caravel-broker`) and
 * sandboxes go under `caravel-sandboxes`, since a cgroup that gives controllers to its children
 * may hold no processes. Only when nothing else lives in that cgroup.
 */
async function ownCgroup(
  mount: CgroupMount & { ownPath?: string },
): Promise<CgroupBackend | string> {
  let own = mount.ownPath;
  if (own === undefined) return `cgroup v2: this process's cgroup is outside ${mount.mountPoint}`;
  // Already moved (by an earlier start of this process, or inherited from the broker).
  const moved = own.endsWith(`/${V2_SELF}`);
  if (moved) own = own.slice(0, -V2_SELF.length - 1) || '/';
  const dir = cgroupDir(mount, own);
  const available = await readSet(join(dir, 'cgroup.controllers'));
  if (!available.has('pids') || !available.has('memory')) {
    return `cgroup v2 ${dir}: no pids and memory controllers there (they may be on v1 hierarchies)`;
  }
  if (own !== '/' && !moved) {
    const access_ = await access(join(dir, 'cgroup.subtree_control'), constants.W_OK).then(
      () => true,
      () => false,
    );
    if (!access_) return `cgroup v2 ${dir}: not delegated to this process (not writable)`;
    const others = (await readFile(join(dir, 'cgroup.procs'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '' && line !== String(process.pid));
    if (others.length > 0) {
      return `cgroup v2 ${dir}: other processes live in this process's cgroup; set SANDBOX_CGROUP_PARENT to a delegated cgroup`;
    }
    await mkdir(join(dir, V2_SELF), { recursive: true });
    await writeFile(join(dir, V2_SELF, 'cgroup.procs'), String(process.pid));
  }
  return prepareV2Base(mount, join(own, V2_CHILD), "this process's own cgroup");
}

/**
 * A scope systemd delegates to this process (`systemd-run --scope -p Delegate=yes`), held open by
 * a small `sh` that lives as long as this process (it reads stdin until it closes). The holder
 * then moves into a leaf, and sandbox cgroups are made beside it.
 */
async function systemdScope(
  mount: CgroupMount,
  options: CgroupDetectOptions,
): Promise<CgroupBackend | string> {
  const running = options.systemdRunning ?? existsSync('/run/systemd/system');
  if (!running) return 'systemd is not the service manager here';
  if (process.getuid?.() !== 0) return 'systemd-run --scope needs root here';
  if (!existsSync(options.systemdRunPath)) return `${options.systemdRunPath} is missing`;
  const unit = `caravel-sandboxes-${process.pid}`;
  const holder = spawn(
    options.systemdRunPath,
    [
      '--scope',
      '--quiet',
      '--collect',
      `--unit=${unit}`,
      '-p',
      'Delegate=yes',
      '--',
      '/bin/sh',
      '-c',
      'read _',
    ],
    { stdio: ['pipe', 'ignore', 'ignore'], env: {} },
  );
  holder.unref();
  (holder.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  const pid = holder.pid;
  if (pid === undefined) return `${options.systemdRunPath} did not start`;
  let scope: string | undefined;
  for (let tries = 0; tries < 50 && scope === undefined; tries += 1) {
    const text = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
    const path = /^0::(.*)$/m.exec(text)?.[1];
    if (path?.endsWith(`/${unit}.scope`)) scope = path;
    else await sleep(100);
  }
  if (scope === undefined) {
    holder.kill('SIGKILL');
    return `systemd-run did not put its holder in ${unit}.scope`;
  }
  const dir = cgroupDir(mount, scope);
  await mkdir(join(dir, 'holder'), { recursive: true });
  await writeFile(join(dir, 'holder', 'cgroup.procs'), String(pid));
  return prepareV2Base(mount, scope, `systemd scope ${unit}.scope, delegated`);
}

/** Sandbox cgroups under `parent` in the v1 pids, memory and (if mounted) cpu hierarchies. */
async function prepareV1(layout: CgroupLayout, parent: string): Promise<CgroupBackend | string> {
  const pids = layout.v1.get('pids');
  const memory = layout.v1.get('memory');
  if (!pids || !memory) return 'cgroup v1: the pids and memory hierarchies are not both mounted';
  const cpuMount = layout.v1.get('cpu');
  const bases = { pids: cgroupDir(pids, parent), memory: cgroupDir(memory, parent) };
  for (const base of Object.values(bases)) await mkdir(base, { recursive: true });
  const probeName = `caravel-probe-${process.pid}`;
  const probes = [join(bases.memory, probeName), join(bases.pids, probeName)];
  let cpu: string | undefined;
  if (cpuMount) {
    const cpuBase = cgroupDir(cpuMount, parent);
    const made = await mkdir(cpuBase, { recursive: true }).then(
      () => true,
      () => false,
    );
    if (made) {
      cpu = cpuBase;
      probes.push(join(cpuBase, probeName));
    }
  }
  try {
    for (const probe of probes) await mkdir(probe, { recursive: true });
    if (!existsSync(join(probes[1] ?? '', 'pids.max'))) return 'cgroup v1: no pids.max';
    const memsw = existsSync(join(probes[0] ?? '', 'memory.memsw.limit_in_bytes'));
    const cpuQuota = cpu !== undefined && existsSync(join(probes[2] ?? '', 'cpu.cfs_quota_us'));
    return new CgroupV1Backend({ ...bases, ...(cpuQuota && cpu ? { cpu } : {}), memsw });
  } finally {
    for (const probe of probes) await rmdir(probe).catch(() => undefined);
  }
}
