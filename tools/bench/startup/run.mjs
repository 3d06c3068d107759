#!/usr/bin/env node
// Startup benchmark: how long the CLI takes to print its help, how long `caravel start`
// (embedded: every service, the embedded bus, PGlite) takes to be ready on a fresh and on a
// reused data directory, its memory at ready and once settled, and how long Ctrl-C takes to end
// it when nothing is in flight — against floors measured in the same run: `node -e 0` for the
// help, a bare NestJS app listening (tools/bench/startup/bare-nest.mjs) for the rest.
//   node tools/scripts/build.mjs && node tools/bench/startup/run.mjs [--runs 3]
// Fails loudly when it did not do the work it reports: the help did not print the usage, the
// ready line or /health/ready never came, or a process did not exit on SIGINT.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadAverage, printSummary, row } from '../summary.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const root = new URL('../../..', import.meta.url).pathname;
const SETTLE_MS = 5_000;
const EXIT_LIMIT_MS = 30_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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

/** Runs a command to its end; its wall time in ms and its output. */
function timedRun(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - started, code, out }));
  });
}

/** Resolves when `child` prints a line matching `pattern` and `url` answers 200. */
async function waitReady(child, pattern, url, label) {
  let seen = false;
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    if (pattern.test(buffered)) seen = true;
  });
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${label} exited (${child.exitCode}) before ready`);
    if (seen) {
      const ok = await fetch(url).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return;
    }
    await sleep(20);
  }
  throw new Error(`${label}: ${seen ? `${url} never answered` : `never printed ${pattern}`}`);
}

/** Sends SIGINT and measures until exit; fails when it does not exit or exits non-zero. */
async function interrupt(child, label) {
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const started = performance.now();
  child.kill('SIGINT');
  const code = await Promise.race([exited, sleep(EXIT_LIMIT_MS).then(() => 'hung')]);
  if (code === 'hung') {
    child.kill('SIGKILL');
    throw new Error(`${label} did not exit within ${EXIT_LIMIT_MS} ms of SIGINT`);
  }
  if (code !== 0) throw new Error(`${label} exited ${code} on SIGINT, not 0`);
  return performance.now() - started;
}

/** Spawns a server, waits until it is ready, settles, reads its memory, then interrupts it. */
async function serve(label, args, pattern, env) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...args(port)], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await waitReady(child, pattern, `http://127.0.0.1:${port}/health/ready`, label);
    const readyMs = performance.now() - started;
    const readyRss = rssMiB(child.pid);
    await sleep(SETTLE_MS);
    if (child.exitCode !== null) throw new Error(`${label} died while settling`);
    const idleRss = rssMiB(child.pid);
    return { readyMs, readyRss, idleRss, exitMs: await interrupt(child, label) };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

const CARAVEL_ENV = {
  CARAVEL_MODEL: 'scripted:examples/fix-sample.script.yaml',
  SANDBOX_PROVIDER: 'local',
};
const caravel = (dataDir) => (port) => [
  'apps/cli/dist/main.js',
  'start',
  '--data-dir',
  dataDir,
  '--port',
  String(port),
];

async function helpFigures() {
  const node = [];
  const help = [];
  for (let i = 0; i < runs * 2; i += 1) {
    node.push((await timedRun(['-e', '0'])).ms);
    const result = await timedRun(['apps/cli/dist/main.js', '--help']);
    if (result.code !== 0 || !result.out.includes('caravel start'))
      throw new Error(`caravel --help exited ${result.code} without the usage: ${result.out}`);
    help.push(result.ms);
  }
  return { node: median(node), help: median(help) };
}

async function startFigures() {
  const bare = [];
  for (let i = 0; i < runs; i += 1) {
    bare.push(
      await serve(
        'bare NestJS',
        (p) => ['tools/bench/startup/bare-nest.mjs', String(p)],
        /listening/,
      ),
    );
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'caravel-startup-'));
  try {
    const fresh = await serve(
      'caravel start (fresh data dir)',
      caravel(dataDir),
      /ready: listening/,
      CARAVEL_ENV,
    );
    const reused = [];
    for (let i = 0; i < runs; i += 1) {
      reused.push(
        await serve(
          'caravel start (reused data dir)',
          caravel(dataDir),
          /ready: listening/,
          CARAVEL_ENV,
        ),
      );
    }
    const pick = (xs, key) => median(xs.map((x) => x[key]));
    const of = (xs) =>
      Object.fromEntries(['readyMs', 'readyRss', 'idleRss', 'exitMs'].map((k) => [k, pick(xs, k)]));
    return { bare: of(bare), fresh: of([fresh]), reused: of(reused) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const loadBefore = loadAverage();
const help = await helpFigures();
const start = await startFigures();
const s = (ms) => (ms / 1000).toFixed(2);
const x = (a, b) => `x${(a / b).toFixed(1)}`;
const { bare, fresh, reused } = start;
process.stdout.write(
  [
    `startup (median of ${runs}; load ${loadBefore} → ${loadAverage()})`,
    '| what | caravel | floor | ratio | goal |',
    '|---|---|---|---|---|',
    `| \`--help\` | ${s(help.help)} s | \`node -e 0\` ${s(help.node)} s | ${x(help.help, help.node)} | < 0.3 s |`,
    `| start → ready, reused data dir | ${s(reused.readyMs)} s | bare NestJS ${s(bare.readyMs)} s | ${x(reused.readyMs, bare.readyMs)} | < 3 s |`,
    `| start → ready, fresh data dir | ${s(fresh.readyMs)} s | bare NestJS ${s(bare.readyMs)} s | ${x(fresh.readyMs, bare.readyMs)} | — |`,
    `| RSS at ready, reused / fresh | ${reused.readyRss.toFixed(0)} / ${fresh.readyRss.toFixed(0)} MiB | ${bare.readyRss.toFixed(0)} MiB | ${x(reused.readyRss, bare.readyRss)} | — |`,
    `| RSS settled ${SETTLE_MS / 1000} s, reused / fresh | ${reused.idleRss.toFixed(0)} / ${fresh.idleRss.toFixed(0)} MiB | ${bare.idleRss.toFixed(0)} MiB | ${x(reused.idleRss, bare.idleRss)} | < 250 MiB |`,
    `| Ctrl-C → exit, idle | ${s(reused.exitMs)} s | bare NestJS ${s(bare.exitMs)} s | ${x(reused.exitMs, bare.exitMs)} | < 1 s |`,
    '',
  ].join('\n'),
);
printSummary('startup', [
  row({
    what: 'caravel --help (s)',
    value: help.help / 1000,
    floor: 'node -e 0',
    floorValue: help.node / 1000,
    goal: '< 0.3 s',
    met: help.help < 300,
  }),
  row({
    what: 'start → ready, reused (s)',
    value: reused.readyMs / 1000,
    floor: 'bare NestJS',
    floorValue: bare.readyMs / 1000,
    goal: '< 3 s',
    met: reused.readyMs < 3000,
  }),
  row({
    what: 'start → ready, fresh (s)',
    value: fresh.readyMs / 1000,
    floor: 'bare NestJS',
    floorValue: bare.readyMs / 1000,
  }),
  row({
    what: 'idle RSS, reused (MiB)',
    value: reused.idleRss,
    floor: 'bare NestJS',
    floorValue: bare.idleRss,
    goal: '< 250 MiB',
    met: reused.idleRss < 250,
  }),
  row({
    what: 'idle RSS, fresh (MiB)',
    value: fresh.idleRss,
    floor: 'bare NestJS',
    floorValue: bare.idleRss,
    goal: '< 250 MiB',
    met: fresh.idleRss < 250,
  }),
  row({
    what: 'Ctrl-C → exit (s)',
    value: reused.exitMs / 1000,
    floor: 'bare NestJS',
    floorValue: bare.exitMs / 1000,
    goal: '< 1 s',
    met: reused.exitMs < 1000,
  }),
]);
