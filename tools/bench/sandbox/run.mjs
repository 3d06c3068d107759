#!/usr/bin/env node
// Sandbox benchmark: exec round trip of `true` in a warm session as a ratio to a raw
// child_process.spawn('true') measured in the same run (plain, and with an output listener, which
// makes the driver stream), sandbox creation time, and N concurrent sessions each running one
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

async function timeEach(count, fn) {
  const samples = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return stats(samples);
}

async function benchProvider(name, provider) {
  const warm = await provider.create();
  await warm.exec('true');
  const exec = await timeEach(config.iterations, () => warm.exec('true'));
  const streamed = await timeEach(config.iterations, () =>
    warm.exec('true', { onOutput: () => undefined }),
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
      `raw spawn('true')      p50 ${fmt(raw.p50)} ms  p99 ${fmt(raw.p99)} ms\n`,
  );
  for (const [name, provider] of providers) {
    const r = await benchProvider(name, provider);
    const label = name.padEnd(12);
    process.stdout.write(
      `${label} exec('true')    p50 ${fmt(r.exec.p50)} ms  p99 ${fmt(r.exec.p99)} ms  ` +
        `| x${(r.exec.p50 / raw.p50).toFixed(2)} raw spawn p50\n` +
        `${label} streamed exec   p50 ${fmt(r.streamed.p50)} ms  p99 ${fmt(r.streamed.p99)} ms  ` +
        `| x${(r.streamed.p50 / raw.p50).toFixed(2)} raw spawn p50\n` +
        `${label} create         p50 ${fmt(r.creation.p50)} ms  p99 ${fmt(r.creation.p99)} ms\n` +
        `${label} ${config.concurrent} concurrent  ${fmt(r.concurrentMs)} ms total ` +
        `(create + one command each), ${r.wrong} wrong outputs\n`,
    );
  }
  await pool?.closeAll();
} finally {
  await rm(root, { recursive: true, force: true });
}
