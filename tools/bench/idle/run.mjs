#!/usr/bin/env node
// Idle benchmark: what `caravel start` (embedded: every service, the embedded bus, PGlite) costs
// while nothing happens, against a bare Node.js process that only keeps itself alive, measured in
// the same run. CPU comes from /proc/<pid>/stat (user + system ticks), split between the main
// thread and the others (V8's and libuv's workers: /proc/<pid>/task/<tid>/stat), memory from VmRSS.
// Two windows of --seconds each, one after the other: the first starts 5 s after ready and holds
// what a start leaves behind (V8's memory reducer compacting the heap, PGlite's WebAssembly tiering
// up); the second is what an idle Caravel costs from then on, and the goal is judged on it.
//   node tools/scripts/build.mjs && node tools/bench/idle/run.mjs [--seconds 60]
// Fails loudly when the platform never became ready or died during a window (then its idle
// figure would measure nothing).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { printSummary, row } from '../summary.mjs';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' } } });
const seconds = Number(values.seconds);
const root = new URL('../../..', import.meta.url).pathname;
const TICKS_PER_SECOND = 100;
const GOAL_CPU_SECONDS_PER_MINUTE = 0.5;

/** User + system ticks in a `stat` file (fields after the command name, which may hold spaces). */
function ticksOf(statPath) {
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** The process's ticks, and those of its main thread. */
function cpuTicks(pid) {
  return { all: ticksOf(`/proc/${pid}/stat`), main: ticksOf(`/proc/${pid}/task/${pid}/stat`) };
}

/** How many threads the process runs (its main thread included). */
function threadCount(pid) {
  return readdirSync(`/proc/${pid}/task`).length;
}

function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
  return Number(line?.[1] ?? 0) / 1024;
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitReady(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`caravel exited (${child.exitCode}) before ready`);
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await sleep(250);
  }
  throw new Error(`caravel was not ready at ${url} within ${timeoutMs} ms`);
}

/** CPU-seconds per minute (all threads, main thread) of `child` over the next window. */
async function windowOf(child, label) {
  const before = cpuTicks(child.pid);
  const started = Date.now();
  await sleep(seconds * 1000);
  if (child.exitCode !== null) throw new Error(`${label} died during an idle window`);
  const after = cpuTicks(child.pid);
  const minutes = (Date.now() - started) / 60_000;
  return {
    cpuPerMinute: (after.all - before.all) / TICKS_PER_SECOND / minutes,
    mainPerMinute: (after.main - before.main) / TICKS_PER_SECOND / minutes,
  };
}

/** The first and the settled window of `child` after it settled for a few seconds, then its RSS. */
async function idleOf(child, label) {
  await sleep(5_000);
  const first = await windowOf(child, label);
  const settled = await windowOf(child, label);
  return { label, first, settled, threads: threadCount(child.pid), rss: rssMiB(child.pid) };
}

async function platform() {
  const dataDir = mkdtempSync(join(tmpdir(), 'caravel-idle-'));
  const port = await freePort();
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['apps/cli/dist/main.js', 'start', '--data-dir', dataDir, '--port', String(port)],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        CARAVEL_MODEL: 'scripted:examples/fix-sample.script.yaml',
        SANDBOX_PROVIDER: 'local',
      },
      stdio: 'ignore',
    },
  );
  try {
    await waitReady(`http://127.0.0.1:${port}/health/ready`, child, 180_000);
    const readyMs = Date.now() - started;
    return { ...(await idleOf(child, 'caravel start (embedded)')), readyMs };
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) =>
      child.exitCode !== null ? resolve() : child.once('exit', resolve),
    );
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function floor() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
    stdio: 'ignore',
  });
  try {
    return await idleOf(child, 'bare node (floor)');
  } finally {
    child.kill();
  }
}

// The floor idles beside the platform: it costs nothing, and the bench takes half the time.
const [bare, caravel] = await Promise.all([floor(), platform()]);
const fmt = (n) => n.toFixed(2);
const met = caravel.settled.cpuPerMinute < GOAL_CPU_SECONDS_PER_MINUTE;
const windowRow = (p, name) =>
  `| ${p.label} | ${name} | ${fmt(p[name].cpuPerMinute)} | ${fmt(p[name].mainPerMinute)} / ${fmt(p[name].cpuPerMinute - p[name].mainPerMinute)} | ${p.threads} | ${fmt(p.rss)} | ${p.readyMs ? `${fmt(p.readyMs / 1000)} s` : '—'} |`;
process.stdout.write(
  [
    `idle, two windows of ${seconds} s from 5 s after ready (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`,
    `| process | window | CPU-s per minute | of it, main thread / others | threads | RSS MiB | ready after |`,
    `|---|---|---|---|---|---|---|`,
    ...[bare, caravel].flatMap((p) => [windowRow(p, 'first'), windowRow(p, 'settled')]),
    `goal: under ${GOAL_CPU_SECONDS_PER_MINUTE} CPU-s per minute once settled — ${met ? 'met' : 'NOT met'}`,
    '',
  ].join('\n'),
);
printSummary('idle', [
  row({
    what: 'idle CPU-s per minute, settled',
    value: caravel.settled.cpuPerMinute,
    floor: 'bare node',
    floorValue: bare.settled.cpuPerMinute,
    ratio: null,
    goal: `< ${GOAL_CPU_SECONDS_PER_MINUTE}`,
    met,
  }),
  row({
    what: 'idle CPU-s per minute, first after ready',
    value: caravel.first.cpuPerMinute,
    floor: 'bare node',
    floorValue: bare.first.cpuPerMinute,
    ratio: null,
  }),
  row({
    what: 'idle RSS (MiB, fresh data dir)',
    value: caravel.rss,
    floor: 'bare node',
    floorValue: bare.rss,
    goal: '< 250',
    met: caravel.rss < 250,
  }),
]);
