#!/usr/bin/env node
// The one test command (README, CI): lint, typecheck, drift check, unit, medium, end-to-end,
// and the chaos suite's short profile.
// Named stages run in order, the whole suite in groups (GROUPS below); either stops at the first
// failure, and the closing line adds up every Jest run. A stage given as steps runs them in order;
// as lanes, side by side; either fails when one does.
//   npm test                 everything
//   npm test -- unit medium  only the named stages
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const results = join(root, 'tmp', 'jest-results');
const nx = ['npx', 'nx', 'run-many', '--outputStyle=stream'];

const E2E = ['node', 'tools/scripts/jest.mjs', '-c', 'jest.e2e.config.cjs', '--runInBand'];

const STAGES = {
  format: ['npx', 'prettier', '--check', '--log-level', 'warn', '.'],
  // One process and one TypeScript program for the whole workspace (tsconfig.typecheck.json):
  // per-project runs would parse and check every shared library once per project importing it.
  // Nx computes the project graph first: without a cached graph the module-boundary rule skips.
  lint: {
    steps: [
      ['npx', 'nx', 'show', 'projects', '--json'],
      ['npx', 'eslint', '--max-warnings', '0', '.'],
    ],
  },
  // The workspace's program (tools/scripts/typecheck.mjs: tsc's check, then the table map's
  // derivation on the same program), then the dashboard's web app, browser code (DOM, no Node
  // types): its own small program.
  typecheck: {
    steps: [
      ['node', 'tools/scripts/typecheck.mjs'],
      ['npx', 'tsc', '-p', 'apps/dashboard/src/web/tsconfig.json', '--noEmit'],
    ],
  },
  drift: ['npm', 'run', '--silent', 'drift'],
  // Every project's unit tests, then the unit tests of the tools that are no Nx project (they
  // import the e2e support and the chaos harness by path, which a project may not): tools/scale's
  // report maths and options. Their measures (the scale run, the chaos profiles) are not run here.
  unit: {
    steps: [
      [...nx, '-t', 'test', '--skip-nx-cache'],
      ['node', 'tools/scripts/jest.mjs', '-c', 'tools/scale/jest.config.cjs'],
    ],
  },
  // Two lanes that take the projects' medium runs from one queue, each the next when its last
  // ends (see mediumRuns). Every project's medium run but the platform scenarios' takes minutes
  // at most: one stuck there is stopped at 15 minutes (tools/scripts/jest.mjs names its running
  // files) rather than at the stage's end.
  medium: { queue: 2, commands: () => mediumRuns(2) },
  e2e: E2E,
  // The whole suite's last stage: the end-to-end run and the medium runs from one queue on three
  // lanes. As two stages side by side (the end-to-end run on its own lane, the medium runs on
  // two) the medium lanes went on alone for about 550 s after the end-to-end run ended, with one
  // lane of three idle; from one queue, the lane that ran it takes medium runs.
  'medium+e2e': { queue: 3, commands: () => [E2E, ...mediumRuns(3)] },
  // The chaos suite's short profile (docs/reliability.md): its own nats-server, databases and
  // processes; fails on anything acknowledged lost, a run run twice, or any other finding.
  chaos: ['node', 'tools/chaos/run.mjs', 'short'],
};

// `npm test` with no stage runs these groups in order; the stages of a group run side by side,
// which keeps CI within its 30 minutes. The checks share nothing. The chaos suite brings its own
// nats-server, databases and processes; it and the end-to-end tests run the built workspace,
// built once before the first group (CARAVEL_PREBUILT tells them not to rebuild it under each
// other). End-to-end tests mostly wait on the processes they start, so they share the cores with
// the medium tests.
const GROUPS = [['format', 'lint', 'typecheck', 'drift'], ['unit', 'chaos'], ['medium+e2e']];
// Stages that run the built workspace (each project's dist; the typecheck, the table map's
// derivation): built once before they start.
const USES_BUILD = new Set(['typecheck', 'chaos', 'e2e', 'medium+e2e']);

const PLATFORM = 'tests/platform';

/** The medium test files below `dir` (its own `node_modules` and `dist` left out). */
function mediumFiles(dir) {
  let count = 0;
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) count += mediumFiles(path);
    else if (entry.name.endsWith('.medium-spec.ts')) count += 1;
  }
  return count;
}

/**
 * Projects whose medium run is long for its number of files (the broker's kill and lifecycle
 * tests, about 340 s for 8 files in the last dry run): queued right after the platform
 * scenarios, so none of them starts last and runs on alone.
 */
const LONG_MEDIUM = ['apps/sandbox-broker'];

/**
 * The projects with medium tests: the platform scenarios first, then {@link LONG_MEDIUM}, then the
 * most files first.
 */
function mediumProjects() {
  const projects = ['apps', 'libs', 'tests'].flatMap((parent) =>
    readdirSync(join(root, parent))
      .map((name) => `${parent}/${name}`)
      .filter((dir) => existsSync(join(root, dir, 'jest.medium.config.cjs'))),
  );
  const counted = projects.map((dir) => [dir, mediumFiles(dir)]).filter(([, n]) => n > 0);
  const order = ([dir, n]) =>
    dir === PLATFORM ? Infinity : LONG_MEDIUM.includes(dir) ? Number.MAX_SAFE_INTEGER : n;
  return counted.sort((a, b) => order(b) - order(a)).map(([dir]) => dir);
}

/**
 * The medium runs, for a queue of `lanes`: the platform scenarios first, as `lanes` Jest shards
 * (as one run they were the longest project by far, about half the stage, and left the other
 * lanes idle at the end), then the other projects in the order of mediumProjects. Medium
 * tests mostly wait on services, sandboxes and git, so the lanes share the cores well.
 */
function mediumRuns(lanes) {
  return mediumProjects().flatMap((dir) => {
    const jest = ['node', 'tools/scripts/jest.mjs', '-c', `${dir}/jest.medium.config.cjs`];
    if (dir !== PLATFORM) return [['env', 'CARAVEL_JEST_CEILING_S=900', ...jest]];
    return Array.from({ length: lanes }, (_, i) => [...jest, `--shard=${i + 1}/${lanes}`]);
  });
}

const asked = process.argv.slice(2);
const groups = asked.length ? asked.map((stage) => [stage]) : GROUPS;
const unknown = asked.filter((s) => !(s in STAGES));
if (unknown.length) {
  process.stderr.write(
    `unknown stage(s): ${unknown.join(', ')}; stages: ${Object.keys(STAGES).join(', ')}\n`,
  );
  process.exit(2);
}

rmSync(results, { recursive: true, force: true });
const env = {
  ...process.env,
  CARAVEL_JEST_RESULTS: results,
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
};
/** Runs one command with the terminal; resolves with its exit status. */
function run([command, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Runs `commands` one after another; false at the first that fails. */
async function inOrder(commands) {
  for (const command of commands) if ((await run(command)) !== 0) return false;
  return true;
}

/** Runs `commands` on `width` lanes, each lane taking the next command when its last ends. */
async function fromQueue(width, commands) {
  const waiting = [...commands];
  let ok = true;
  const lane = async () => {
    for (let next = waiting.shift(); next; next = waiting.shift()) {
      process.stdout.write(`\n=== start: ${next.join(' ')}\n`);
      if ((await run(next)) !== 0) ok = false;
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return ok;
}

/** Runs one stage (its lanes side by side, its steps in order, or its queue); true when it passed. */
async function runStage(stage) {
  const { lanes, steps, queue } = STAGES[stage];
  const commands = queue ? STAGES[stage].commands() : (lanes ?? steps ?? [STAGES[stage]]);
  for (const command of commands) process.stdout.write(`\n=== ${stage}: ${command.join(' ')}\n`);
  const started = Date.now();
  const ok = queue
    ? await fromQueue(queue, commands)
    : lanes
      ? (await Promise.all(lanes.map(run))).every((s) => s === 0)
      : await inOrder(commands);
  process.stdout.write(
    `=== ${stage}: ${ok ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return ok;
}

if (groups.flat().some((stage) => USES_BUILD.has(stage))) {
  process.stdout.write('\n=== build: node tools/scripts/build.mjs\n');
  if ((await run(['node', 'tools/scripts/build.mjs'])) !== 0) {
    process.stdout.write('\nthe workspace build failed\n');
    process.exit(1);
  }
  env.CARAVEL_PREBUILT = '1';
}

let failedStage = null;
for (const group of groups) {
  const outcomes = await Promise.all(group.map(async (stage) => [stage, await runStage(stage)]));
  const failing = outcomes.filter(([, ok]) => !ok).map(([stage]) => stage);
  if (failing.length > 0) {
    failedStage = failing.join("' and '");
    break;
  }
}

let passed = 0;
let failed = 0;
let skipped = 0;
const durations = [];
if (existsSync(results)) {
  for (const file of readdirSync(results)) {
    const summary = JSON.parse(readFileSync(join(results, file), 'utf8'));
    passed += summary.numPassedTests;
    failed += summary.numFailedTests;
    skipped += summary.numPendingTests + summary.numTodoTests;
    for (const test of summary.testResults ?? []) {
      durations.push([(test.endTime - test.startTime) / 1000, relative(root, test.name)]);
    }
  }
}
// The slowest test files, to keep CI inside its budget: the first place to look when it grows.
durations.sort(([a], [b]) => b - a);
process.stdout.write('\nslowest test files:\n');
for (const [seconds, name] of durations.slice(0, 15)) {
  process.stdout.write(`  ${seconds.toFixed(1).padStart(7)} s  ${name}\n`);
}
if (failedStage) process.stdout.write(`\nstage '${failedStage}' failed\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(failedStage || failed ? 1 : 0);
