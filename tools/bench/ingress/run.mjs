#!/usr/bin/env node
// Ingress benchmark: time-to-2xx of the real ingress (signature check on the raw bytes, dedupe
// record, publish acked by the bus) under two loads, as ratios to a bare NestJS JSON endpoint
// measured in the same run and the same way:
//   - a burst of 200 concurrent signed Slack `app_mention` deliveries, each on its own connection;
//   - a sustained open-loop 500 req/s of signed GitHub `issue_comment` mentions for 10 s.
// Each server runs in its own process (server.mjs): bare NestJS, ingress on the embedded bus in
// PGlite, and ingress on NATS JetStream + PostgreSQL (skipped when they do not answer).
//   node tools/scripts/build.mjs && node tools/bench/ingress/run.mjs [--burst 200] [--rate 500] [--seconds 10]
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { printSummary, row as summaryRow } from '../summary.mjs';
import { burst, sustained } from './load.mjs';
import { githubDelivery, slackDelivery } from './signing.mjs';

const { values } = parseArgs({
  options: {
    burst: { type: 'string', default: '200' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '200' },
    only: { type: 'string' },
  },
});
const BURST = Number(values.burst);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const SERVER = new URL('./server.mjs', import.meta.url).pathname;

/** Starts a server process and resolves once it prints its URL. */
function startServer(mode) {
  const child = spawn(process.execPath, [SERVER, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  return new Promise((resolve, reject) => {
    // A fresh PGlite under a load of 10-15 takes minutes; a server that never says so is killed.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${mode} server did not start within 300 s`));
    }, 300_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = /^listening (\S+)/.exec(line);
      if (!found) return;
      clearTimeout(timer);
      resolve({
        url: found[1],
        stop: () =>
          new Promise((done) => {
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${mode} server exited (${code}): ${errors.trim().split('\n').at(-1)}`));
    });
  });
}

/** Both loads against one server, after a warm-up of each delivery kind. */
async function measure(mode) {
  const server = await startServer(mode);
  try {
    // Distinct delivery numbers per phase: every measured delivery is new to the server.
    await burst(server.url, (n) => slackDelivery(1_000_000 + n), WARMUP);
    await sustained(server.url, (n) => githubDelivery(1_000_000 + n), RATE, WARMUP / RATE);
    const slack = await burst(server.url, slackDelivery, BURST);
    const github = await sustained(server.url, githubDelivery, RATE, SECONDS);
    return { slack, github };
  } finally {
    await server.stop();
  }
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const failures = (r) =>
  Object.keys(r.failures).length === 0
    ? ''
    : `  non-2xx ${Object.entries(r.failures)
        .map(([k, v]) => `${k}:${v}`)
        .join(',')}`;

function row(name, load, result, base) {
  const ratio = base
    ? `  | x${fmt(result.p50 / base.p50, 2)} p50  x${fmt(result.p99 / base.p99, 2)} p99`
    : '';
  return (
    `${name.padEnd(37)} ${load.padEnd(19)} ${String(result.ok).padStart(5)}/${result.sent} 2xx` +
    `  ${fmt(result.rate, 0).padStart(5)} done/s  p50 ${fmt(result.p50).padStart(7)} ms` +
    `  p99 ${fmt(result.p99).padStart(7)} ms${ratio}${failures(result)}\n`
  );
}

const servers = [
  ['bare', 'bare NestJS endpoint'],
  ['embedded', 'ingress, embedded bus on PGlite'],
  ['distributed', 'ingress, NATS JetStream + PostgreSQL'],
].filter(([mode]) => !values.only || values.only.split(',').includes(mode));

process.stdout.write(
  `ingress bench: burst of ${BURST} concurrent signed Slack deliveries; ` +
    `open-loop ${RATE} req/s of signed GitHub deliveries for ${SECONDS} s; ` +
    `time to the last byte of a 2xx\n` +
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} at start (other work on the machine inflates every row, the ratios less)\n`,
);
let baseline;
const summary = [];
for (const [mode, name] of servers) {
  let result;
  try {
    result = await measure(mode);
  } catch (error) {
    process.stdout.write(`${name.padEnd(37)} skipped: ${error.message}\n`);
    continue;
  }
  if (mode === 'bare') baseline = result;
  process.stdout.write(row(name, `slack burst ${BURST}`, result.slack, baseline?.slack));
  process.stdout.write(row(name, `github ${RATE}/s ${SECONDS}s`, result.github, baseline?.github));
  if (mode !== 'bare' && baseline) {
    summary.push(
      summaryRow({
        what: `${mode}: slack burst p99 (ms)`,
        value: result.slack.p99,
        floor: 'bare NestJS',
        floorValue: baseline.slack.p99,
      }),
      summaryRow({
        what: `${mode}: github ${RATE}/s done/s`,
        value: result.github.rate,
        floor: 'bare NestJS',
        floorValue: baseline.github.rate,
        goal: '>= 0.5x bare',
        met: result.github.rate >= baseline.github.rate / 2,
      }),
    );
  }
}
printSummary('ingress', summary);
