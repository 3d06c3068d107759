#!/usr/bin/env node
// Ingress benchmark: the real ingress (signature check on the raw bytes, dedupe record, publish
// acked by the bus) against the floor — a bare NestJS JSON endpoint — and against what a user
// would pick instead, doing the same verification and an in-memory dedupe and publish on the same
// signed deliveries: Probot's way (`@octokit/webhooks` middleware) for GitHub, Slack Bolt (its
// HTTPReceiver and its ExpressReceiver) for Slack; and against the durable floor, the same claim,
// publish and settle on the same PostgreSQL and NATS written plainly with `node:http`, `pg` and
// the JetStream client (durable-floor.mjs). All measured in the same run, the same way:
//   - a burst of 200 concurrent signed Slack `app_mention` deliveries, each on its own connection;
//   - an open-loop 500 req/s of signed GitHub `issue_comment` mentions for 10 s, three times in a
//     row (the run with the median p99 is reported, with each run's p99), after 8 s of the
//     same load as a warm-up (JIT, connection pools, keep-alive sockets), for every server alike,
//     with the CPU a delivery cost each party (as for the peak);
//   - the peak: 64 keep-alive connections in a closed loop for 10 s, GitHub then Slack deliveries:
//     2xx answers completed per second, and the CPU a delivery cost the server, PostgreSQL, NATS
//     and the load generator (they share the machine's cores: their sum bounds the peak).
// For the open loop and the peaks, what the server allocated a delivery and its GC pauses too
// (gc.mjs): at a steady rate the scavenges are what the worst answers are made of.
// Each server runs in its own process (server.mjs). The bench fails (exit 1) when a server answers
// anything but 2xx, when Caravel or the bare endpoint does not say `accepted` for a new delivery,
// or when a server's handler took fewer deliveries than were answered.
//   node tools/scripts/build.mjs && node tools/bench/ingress/run.mjs [--burst 200] [--rate 500]
//     [--seconds 10] [--connections 64] [--peak-seconds 10] [--warmup 200] [--warmup-seconds 8]
//     [--rate-runs 3] [--connection-per-delivery]
//     [--only bare,octokit,bolt,bolt-express,floor,embedded,distributed]
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { printSummary } from '../summary.mjs';
import { cpuLine, cpuPerDelivery, cpuSnapshot } from './cpu.mjs';
import { gcLine } from './gc.mjs';
import { burst, peak, sustained, sustainedRuns } from './load.mjs';
import { problemsOf, resultRow, summaryRows } from './report.mjs';
import { startServer } from './server-process.mjs';
import { githubDelivery, slackDelivery } from './signing.mjs';

const { values } = parseArgs({
  options: {
    burst: { type: 'string', default: '200' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    'peak-seconds': { type: 'string', default: '10' },
    warmup: { type: 'string', default: '200' },
    'warmup-seconds': { type: 'string', default: '8' },
    'rate-runs': { type: 'string', default: '3' },
    'connection-per-delivery': { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const BURST = Number(values.burst);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PEAK_SECONDS = Number(values['peak-seconds']);
const WARMUP = Number(values.warmup);
const WARMUP_SECONDS = Number(values['warmup-seconds']);
const RATE_RUNS = Number(values['rate-runs']);
/** The open loop (and its warm-up) opens a connection a delivery, as GitHub does. */
const PER_DELIVERY = values['connection-per-delivery'];

/**
 * The loads, each on deliveries numbered apart from the others' so every measured delivery is new
 * to the server (its own delivery id, event id and comment).
 */
const LOADS = {
  slackBurst: {
    kind: 'slack',
    label: `slack burst ${BURST}`,
    run: (url) => burst(url, slackDelivery, BURST),
  },
  githubRate: {
    kind: 'github',
    label: `github ${RATE}/s ${RATE_RUNS}x${SECONDS}s${PER_DELIVERY ? ', a connection each' : ''}`,
    run: (url) => sustainedRuns(url, githubDelivery, RATE, SECONDS, RATE_RUNS, PER_DELIVERY),
    cpu: true,
  },
  githubPeak: {
    kind: 'github',
    label: `github peak ${CONNECTIONS} conn`,
    run: (url) => peak(url, githubDelivery, CONNECTIONS, PEAK_SECONDS, 2_000_000),
    cpu: true,
  },
  slackPeak: {
    kind: 'slack',
    label: `slack peak ${CONNECTIONS} conn`,
    run: (url) => peak(url, slackDelivery, CONNECTIONS, PEAK_SECONDS, 2_000_000),
    cpu: true,
  },
};
const EVERY_LOAD = Object.keys(LOADS);

/** `accepts`: the server answers `"accepted":true` to a new delivery (checked for each 2xx). */
const SERVERS = [
  { mode: 'bare', name: 'bare NestJS endpoint', loads: EVERY_LOAD, accepts: true },
  { mode: 'octokit', name: "Probot's way, @octokit/webhooks", loads: ['githubRate', 'githubPeak'] },
  { mode: 'bolt', name: 'Slack Bolt, HTTPReceiver', loads: ['slackBurst', 'slackPeak'] },
  { mode: 'bolt-express', name: 'Slack Bolt, ExpressReceiver', loads: ['slackBurst', 'slackPeak'] },
  {
    mode: 'floor',
    name: 'durable floor: http + pg + JetStream',
    loads: ['githubRate', 'githubPeak'],
    accepts: true,
    optional: true,
  },
  { mode: 'embedded', name: 'ingress, embedded bus on PGlite', loads: EVERY_LOAD, accepts: true },
  {
    mode: 'distributed',
    name: 'ingress, NATS JetStream + PostgreSQL',
    loads: EVERY_LOAD,
    accepts: true,
    optional: true,
  },
].filter(({ mode }) => !values.only || values.only.split(',').includes(mode));

/** A warm-up of each delivery kind the server takes, then its loads; what its handler took. */
async function measure(server) {
  const running = await startServer(server.mode);
  const results = {};
  try {
    const kinds = new Set(server.loads.map((load) => LOADS[load].kind));
    if (kinds.has('slack'))
      results.slackWarmup = await burst(running.url, (n) => slackDelivery(1_000_000 + n), WARMUP);
    if (kinds.has('github'))
      results.githubWarmup = await sustained(
        running.url,
        (n) => githubDelivery(1_000_000 + n),
        RATE,
        WARMUP_SECONDS,
        0,
        PER_DELIVERY,
      );
    for (const load of server.loads) {
      const before = LOADS[load].cpu ? cpuSnapshot(running.pid) : undefined;
      if (before) running.gcStart();
      results[load] = await LOADS[load].run(running.url);
      if (before) {
        const delivered = results[load].ok;
        results[load].cpu = cpuPerDelivery(before, cpuSnapshot(running.pid), delivered);
        results[load].gc = await running.gcStop();
      }
    }
  } finally {
    results.handled = await running.stop();
  }
  return results;
}

process.stdout.write(
  `ingress bench: burst of ${BURST} concurrent signed Slack deliveries; ` +
    `open-loop ${RATE} req/s of signed GitHub deliveries for ${SECONDS} s, ${RATE_RUNS} times ` +
    (PER_DELIVERY ? 'on a new connection each ' : '') +
    `(after ${WARMUP_SECONDS} s of it as a warm-up); ` +
    `peak: ${CONNECTIONS} keep-alive connections in a closed loop for ${PEAK_SECONDS} s; ` +
    `time to the last byte of a 2xx\n` +
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} at start (other work on the machine inflates every row, the ratios less)\n`,
);
const measured = {};
const problems = [];
for (const server of SERVERS) {
  try {
    measured[server.mode] = await measure(server);
  } catch (error) {
    process.stdout.write(`${server.name.padEnd(37)} skipped: ${error.message}\n`);
    if (!server.optional) problems.push(`${server.name}: ${error.message}`);
    continue;
  }
  for (const load of server.loads) {
    const floor = server.mode === 'bare' ? undefined : measured.bare?.[load];
    const result = measured[server.mode][load];
    process.stdout.write(resultRow(server.name, LOADS[load].label, result, floor));
    if (result.cpu) process.stdout.write(cpuLine(result.cpu, cpus().length));
    if (result.gc) process.stdout.write(gcLine(result.gc, result.ok));
  }
  problems.push(...problemsOf(server, measured[server.mode]));
}
printSummary('ingress', summaryRows(measured, { burst: BURST, rate: RATE }));
if (problems.length > 0) {
  process.stderr.write(`ingress bench FAILED:\n${problems.map((p) => `  ${p}\n`).join('')}`);
  process.exit(1);
}
