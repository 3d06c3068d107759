#!/usr/bin/env node
// Bus benchmark: publish -> consume -> ack throughput and latency for each Caravel bus adapter,
// printed as ratios to a raw @nats-io/jetstream loop measured in the same run. Loopback only,
// bounded message counts.
// Then replay: the stored messages of a stream read back through the bus against a raw ordered
// consumer (replay.mjs).
//   node tools/scripts/build.mjs && node tools/bench/bus/run.mjs [--messages 2000] [--window 64]
//     [--replay 20000: how many messages the replay reads; 0 skips it]
// It imports the built `dist` of the workspace libraries (see tools/scripts/build.mjs).
import { parseArgs } from 'node:util';
import { printSummary, row as summaryRow } from '../summary.mjs';
import { runRawJetStream } from './raw-jetstream.mjs';
import { runCaravelBus } from './caravel-bus.mjs';
import { embeddedAdapter, jetStreamAdapter } from './adapters.mjs';
import { runReplay } from './replay.mjs';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '2000' },
    window: { type: 'string', default: '64' },
    replay: { type: 'string', default: '20000' },
    url: { type: 'string', default: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' },
    'database-url': {
      type: 'string',
      default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const config = {
  messages: Number(values.messages),
  window: Number(values.window),
  url: values.url,
};

const adapters = [
  jetStreamAdapter(config.url),
  embeddedAdapter('pglite'),
  embeddedAdapter('postgres', values['database-url']),
];

function fmt(n, digits = 2) {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

function row(name, result, baseline) {
  return [
    name.padEnd(26),
    `${fmt(result.throughput, 0).padStart(8)} msg/s`,
    `p50 ${fmt(result.p50).padStart(7)} ms`,
    `p99 ${fmt(result.p99).padStart(7)} ms`,
    `| x${fmt(result.throughput / baseline.throughput)} throughput`,
    `x${fmt(result.p50 / baseline.p50)} p50`,
    `x${fmt(result.p99 / baseline.p99)} p99`,
  ].join('  ');
}

process.stdout.write(
  `bus bench: throughput ${config.messages} msgs with ${config.window} publishes in flight; ` +
    `latency ${Math.min(config.messages, 500)} msgs one at a time; ${config.url}\n`,
);
// Throughput with a full publish window; latency with one publish at a time, so the figures are
// the path's own cost rather than queueing behind a saturated consumer.
const latencyConfig = { ...config, messages: Math.min(config.messages, 500), window: 1 };
async function measure(run) {
  const loaded = await run(config);
  const unloaded = await run(latencyConfig);
  return { throughput: loaded.throughput, p50: unloaded.p50, p99: unloaded.p99 };
}

const baseline = await measure(runRawJetStream);
process.stdout.write(`${row('raw jetstream', baseline, baseline)}\n`);
const summary = [];
for (const adapter of adapters) {
  const result = await measure((c) => runCaravelBus(adapter, c));
  process.stdout.write(`${row(adapter.name, result, baseline)}\n`);
  summary.push(
    summaryRow({
      what: `${adapter.name} throughput (msg/s)`,
      value: result.throughput,
      floor: 'raw JetStream',
      floorValue: baseline.throughput,
    }),
    summaryRow({
      what: `${adapter.name} p50 (ms)`,
      value: result.p50,
      floor: 'raw JetStream',
      floorValue: baseline.p50,
    }),
  );
}
const replayed = Number(values.replay);
if (replayed > 0) {
  const replay = await runReplay(jetStreamAdapter(config.url), {
    url: config.url,
    messages: replayed,
  });
  process.stdout.write(
    `replay of ${replayed} stored messages (median of 3): caravel ${fmt(replay.caravel, 0)} ` +
      `msg/s, raw ordered consumer ${fmt(replay.raw, 0)} msg/s | x${fmt(replay.caravel / replay.raw)}\n`,
  );
  summary.push(
    summaryRow({
      what: 'jetstream replay (msg/s)',
      value: replay.caravel,
      floor: 'raw ordered consumer',
      floorValue: replay.raw,
      goal: '>= 50000 msg/s',
      met: replay.caravel >= 50_000,
    }),
  );
}
printSummary('bus', summary);
