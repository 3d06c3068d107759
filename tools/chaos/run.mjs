#!/usr/bin/env node
// The chaos suite (docs/reliability.md): builds the workspace, runs one profile under Jest, and
// whatever happens (a failure, Ctrl-C, its time bound) removes everything the run started
// (tools/chaos/launch.mjs).
//   node tools/chaos/run.mjs short     (npm run chaos:short, a few minutes)
//   node tools/chaos/run.mjs long      (npm run chaos)
//   node tools/chaos/run.mjs short -t PostgreSQL    (more arguments go to Jest)
import { newRunId, runMarkedSuite } from './launch.mjs';

const BOUNDS_MS = { short: 10 * 60_000, long: 75 * 60_000 };
const [profile = 'short', ...jestArgs] = process.argv.slice(2);
if (!(profile in BOUNDS_MS)) {
  process.stderr.write(`usage: run.mjs ${Object.keys(BOUNDS_MS).join('|')}\n`);
  process.exit(2);
}

const code = await runMarkedSuite({
  label: 'chaos',
  runId: newRunId(),
  config: 'tools/chaos/jest.config.cjs',
  pattern: `${profile}.chaos-spec`,
  boundMs: BOUNDS_MS[profile],
  jestArgs,
  env: {},
});
process.exit(code);
