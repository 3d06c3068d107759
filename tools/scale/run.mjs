#!/usr/bin/env node
// The scale-out measure (tools/scale/README.md): one process of each service (the baseline), then
// the scaled shape (3 ingress, 2 dispatch, 3 agent runners, 2 sandbox brokers by default), each on
// the machine's NATS and a fresh PostgreSQL database, under a mixed webhook load from every source
// while a random process is killed (kill -9) and restarted every --kill-every seconds. Writes
// <out>/scale.json and <out>/scale.md and exits 1 when anything was lost, duplicated or not
// accounted for. Builds the workspace first; the run's processes, files and databases are swept
// whatever happens (tools/chaos/launch.mjs).
//   node tools/scale/run.mjs [--duration 60] [--kill-every 15] [--kill-only sandbox-broker,...]
//     [--rate 0.5] [--replicas team] [--drain 300] [--no-baseline] [--log-level warn] [--out tmp/scale]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newRunId, runMarkedSuite } from '../chaos/launch.mjs';

const root = new URL('../..', import.meta.url).pathname;
const USAGE =
  'usage: node tools/scale/run.mjs [--duration 60] [--kill-every 15] [--kill-only <services>]\n' +
  '         [--rate 0.5] [--replicas team] [--drain 300] [--no-baseline] [--log-level warn] [--out tmp/scale]\n';
const parsed = (() => {
  try {
    return parseArgs({
      options: {
        duration: { type: 'string', default: '60' },
        'kill-every': { type: 'string', default: '15' },
        'kill-only': { type: 'string', default: '' },
        rate: { type: 'string', default: '0.5' },
        replicas: { type: 'string', default: 'team' },
        drain: { type: 'string', default: '300' },
        'log-level': { type: 'string', default: 'warn' },
        'no-baseline': { type: 'boolean', default: false },
        out: { type: 'string', default: join(root, 'tmp', 'scale') },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    process.stderr.write(`scale: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
})();
if (parsed.values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const { values } = parsed;
const options = {
  durationS: Number(values.duration),
  killEveryS: Number(values['kill-every']),
  killOnly: values['kill-only'],
  rate: Number(values.rate),
  replicas: values.replicas,
  drainS: Number(values.drain),
  baseline: !values['no-baseline'],
  logLevel: values['log-level'],
  out: values.out,
  command: `node tools/scale/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
};
if (!(options.durationS > 0 && options.killEveryS >= 0 && options.rate > 0 && options.drainS > 0)) {
  process.stderr.write('scale: --duration, --rate and --drain must be > 0, --kill-every >= 0\n');
  process.exit(2);
}

// Each phase: about 30 s to start, the load, the drain at most, 20 s to stop; twice the sum.
const phases = options.baseline ? 2 : 1;
const boundMs = phases * 2 * (30 + options.durationS + options.drainS + 20) * 1000;
const code = await runMarkedSuite({
  label: 'scale',
  runId: newRunId(),
  config: 'tools/scale/jest.scale.config.cjs',
  pattern: 'scale.scale-spec',
  boundMs,
  jestArgs: [],
  env: { CARAVEL_SCALE_OPTIONS: JSON.stringify(options) },
});
process.exit(code);
