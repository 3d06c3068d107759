#!/usr/bin/env node
// Sandbox benchmark: exec round trip of `true` in a warm session as a ratio to a raw
// child_process.spawn('true') timed right before each exec (plain, and with an output listener,
// which makes the driver stream), so both see the same load on a shared machine, sandbox creation time, and N concurrent sessions each running one
// command. For bwrap also with the egress proxy bridge (a per-sandbox proxy on a Unix socket, the
// socat forwarder and its supervisor inside). Bounded counts, no network beyond loopback.
//   node tools/scripts/build.mjs libs/sandbox && node tools/bench/sandbox/run.mjs [--iterations 200]
// It imports the built `dist` of @caravel/sandbox (see tools/scripts/build.mjs).
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { printSummary, row as summaryRow } from '../summary.mjs';
import {
  BwrapSandboxProvider,
  EgressProxyPool,
  LocalSandboxProvider,
  bwrapAvailable,
} from '@caravel/sandbox';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '200' },
    creations: { type: 'string', default: '10' },
    concurrent: { type: 'string', default: '50' },
  },
});
const config = {
  iterations: Number(values.iterations),
  creations: Number(values.creations),
  concurrent: Number(values.concurrent),
};

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

function rawSpawnTrue() {
  return new Promise((resolve, reject) => {
    const child = spawn('true', { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function timeEach(count, fn) {
  const samples = [];
  for (let i = 0; i < count; i += 1) samples.push(await timed(fn));
  return stats(samples);
}

/** `fn` and a raw spawn, in turns: the spawn is the floor `fn` is compared with at that moment. */
async function timePaired(count, fn) {
  const samples = [];
  const floor = [];
  for (let i = 0; i < count; i += 1) {
    floor.push(await timed(rawSpawnTrue));
    samples.push(await timed(fn));
  }
  return { ...stats(samples), raw: stats(floor) };
}

/** Commands the sandboxes ran and reported as run (exit 0, output as expected). */
let executed = 0;

/** Fails the bench when a command did not run as it should: its time would measure nothing. */
async function ran(result, output = '') {
  const { exitCode, output: got } = await result;
  if (exitCode !== 0 || got !== output)
    throw new Error(`a sandbox command exited ${exitCode} with ${JSON.stringify(got)}`);
  executed += 1;
}

/** Round trips made before any is timed, so the timed ones run on warmed-up code (JIT, caches). */
const WARM_UP_ROUND_TRIPS = 20;

async function benchProvider(name, provider) {
  const warm = await provider.create();
  for (let i = 0; i < WARM_UP_ROUND_TRIPS; i += 1) {
    await ran(warm.exec('true'));
    await rawSpawnTrue();
  }
  const exec = await timePaired(config.iterations, () => ran(warm.exec('true')));
  const streamed = await timePaired(config.iterations, () =>
    ran(warm.exec('true', { onOutput: () => undefined })),
  );
  await provider.delete(warm.id);

  const created = [];
  const creation = await timeEach(config.creations, async () => {
    created.push(await provider.create());
  });
  await Promise.all(created.map((box) => provider.delete(box.id)));

  const started = performance.now();
  const boxes = await Promise.all(
    Array.from({ length: config.concurrent }, () => provider.create()),
  );
  const results = await Promise.all(boxes.map((box) => box.exec('echo $((6 * 7))')));
  const concurrentMs = performance.now() - started;
  const wrong = results.filter((r) => r.output !== '42\n').length;
  executed += results.length - wrong;
  await Promise.all(boxes.map((box) => provider.delete(box.id)));
  return { name, exec, streamed, creation, concurrentMs, wrong };
}

const fmt = (n) => n.toFixed(2).padStart(8);
const root = await mkdtemp(join(tmpdir(), 'caravel-bench-sandbox-'));
await chmod(root, 0o755);
try {
  const raw = await timeEach(config.iterations, rawSpawnTrue);
  const quiet = { warn: () => undefined };
  const providers = [
    ['local', new LocalSandboxProvider({ rootDir: join(root, 'l'), logger: quiet })],
  ];
  let pool;
  if (bwrapAvailable()) {
    providers.push(['bwrap', new BwrapSandboxProvider({ rootDir: join(root, 'b') })]);
    pool = new EgressProxyPool({
      dir: join(root, 'e'),
      github: { gitHost: 'github.com', apiHost: 'api.github.com' },
      allowlist: [],
      tokenSource: () => ({ getToken: () => Promise.reject(new Error('no token in the bench')) }),
      ...(process.getuid?.() === 0 ? { socketOwner: { uid: 65534, gid: 65534 } } : {}),
    });
    const egressProxy = { gitHost: 'github.com', apiHost: 'api.github.com', gateway: pool };
    providers.push([
      'bwrap+egress',
      new BwrapSandboxProvider({ rootDir: join(root, 'g'), egressProxy }),
    ]);
  } else process.stdout.write('bwrap not available: measuring local only\n');
  process.stdout.write(
    `sandbox bench: ${config.iterations} round trips, ${config.creations} creations, ` +
      `${config.concurrent} concurrent sessions\n` +
      `raw spawn('true')      p50 ${fmt(raw.p50)} ms  p99 ${fmt(raw.p99)} ms ` +
      `(alone; each exec's ratio is to the spawns timed between its round trips)\n`,
  );
  const summary = [];
  for (const [name, provider] of providers) {
    const r = await benchProvider(name, provider);
    summary.push(
      summaryRow({
        what: `${name} exec('true') p50 (ms)`,
        value: r.exec.p50,
        floor: 'raw spawn',
        floorValue: r.exec.raw.p50,
        goal: '<= x1.5',
        met: r.exec.p50 <= 1.5 * r.exec.raw.p50,
      }),
      summaryRow({
        what: `${name} create p50 (ms)`,
        value: r.creation.p50,
        floor: 'none (absolute)',
      }),
    );
    const label = name.padEnd(12);
    process.stdout.write(
      `${label} exec('true')    p50 ${fmt(r.exec.p50)} ms  p99 ${fmt(r.exec.p99)} ms  ` +
        `| x${(r.exec.p50 / r.exec.raw.p50).toFixed(2)} raw spawn p50 ${fmt(r.exec.raw.p50)} ms\n` +
        `${label} streamed exec   p50 ${fmt(r.streamed.p50)} ms  p99 ${fmt(r.streamed.p99)} ms  ` +
        `| x${(r.streamed.p50 / r.streamed.raw.p50).toFixed(2)} raw spawn p50 ${fmt(r.streamed.raw.p50)} ms\n` +
        `${label} create         p50 ${fmt(r.creation.p50)} ms  p99 ${fmt(r.creation.p99)} ms\n` +
        `${label} ${config.concurrent} concurrent  ${fmt(r.concurrentMs)} ms total ` +
        `(create + one command each), ${r.wrong} wrong outputs\n`,
    );
  }
  await pool?.closeAll();
  const expected =
    providers.length * (2 * config.iterations + WARM_UP_ROUND_TRIPS + config.concurrent);
  process.stdout.write(`${executed} of ${expected} commands ran as expected\n`);
  if (executed !== expected) throw new Error(`only ${executed} of ${expected} commands ran`);
  printSummary('sandbox', summary);
} finally {
  await rm(root, { recursive: true, force: true });
}
