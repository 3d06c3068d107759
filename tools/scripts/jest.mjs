#!/usr/bin/env node
// Runs Jest in ESM mode (NestJS 12, Octokit and Linear are ESM-only): `node tools/scripts/jest.mjs <jest args>`.
// With CARAVEL_JEST_RESULTS set to a folder, each run also writes its JSON summary there, which
// tools/scripts/test.mjs adds up into one closing line.
//
// A watchdog keeps one stuck test from eating CI's whole budget in silence:
// - Jest that finished its tests but does not exit (a test left a process or socket open) is
//   stopped after LINGER_MS, with the processes it left listed; the exit status is the tests'.
// - A run longer than CARAVEL_JEST_CEILING_S seconds (default 1500 under CI=true, none otherwise)
//   is stopped and fails, naming the test files still running and the processes below it.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const jestBin = join(dirname(require.resolve('jest/package.json')), 'bin/jest.js');
const reporter = join(dirname(new URL(import.meta.url).pathname), 'jest-progress-reporter.cjs');
const POLL_MS = 5_000;
const LINGER_MS = 30_000;

const args = process.argv.slice(2);
const resultsDir = process.env.CARAVEL_JEST_RESULTS;
if (resultsDir) {
  mkdirSync(resultsDir, { recursive: true });
  args.push('--json', `--outputFile=${join(resultsDir, `${randomUUID()}.json`)}`);
}
const ceilingS = Number(
  process.env.CARAVEL_JEST_CEILING_S ?? (process.env.CI === 'true' ? 1500 : 0),
);
const progress = join(tmpdir(), `caravel-jest-progress-${randomUUID()}`);
args.push('--reporters=default', `--reporters=${reporter}`);

const started = Date.now();
const child = spawn(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jestBin, ...args],
  { stdio: 'inherit', env: { ...process.env, CARAVEL_JEST_PROGRESS: progress } },
);

/** The progress file's lines: `<ms> start <file>`, `<ms> end <file>`, `<ms> complete <0|1>`. */
function progressLines() {
  if (!existsSync(progress)) return [];
  return readFileSync(progress, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '));
}

/** Every process below `root`, from /proc (parent links), with its age and command line. */
function descendants(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended while the table was read.
    }
  }
  const found = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift();
    let command = '?';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      // Gone already.
    }
    found.push({ pid, command });
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** Lists what is below Jest, then kills it all (the processes first, so none is orphaned). */
function stopEverything(why) {
  const left = descendants(child.pid);
  process.stderr.write(`\njest watchdog: ${why}\nprocesses below Jest (${left.length}):\n`);
  for (const { pid, command } of left) process.stderr.write(`  ${pid}  ${command.slice(0, 200)}\n`);
  for (const { pid } of left.reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  child.kill('SIGKILL');
}

let verdict = null;
const watchdog = setInterval(() => {
  const lines = progressLines();
  const complete = lines.find(([, kind]) => kind === 'complete');
  if (complete && Date.now() - Number(complete[0]) > LINGER_MS) {
    verdict = complete[2] === '1' ? 0 : 1;
    stopEverything(
      `Jest finished its tests ${Math.round((Date.now() - Number(complete[0])) / 1000)} s ago ` +
        'but did not exit: a test left a process or a socket open (listed below). The tests ' +
        `${verdict === 0 ? 'passed' : 'failed'}; fix the leak.`,
    );
    return;
  }
  if (ceilingS > 0 && Date.now() - started > ceilingS * 1000) {
    const running = new Map();
    for (const [at, kind, file] of lines) {
      if (kind === 'start') running.set(file, Number(at));
      if (kind === 'end') running.delete(file);
    }
    const names = [...running].map(
      ([file, at]) => `  ${file} (running for ${Math.round((Date.now() - at) / 1000)} s)`,
    );
    verdict = 1;
    stopEverything(
      `this Jest run passed its ceiling of ${ceilingS} s (CARAVEL_JEST_CEILING_S); ` +
        `test files still running:\n${names.join('\n') || '  (none started)'}`,
    );
  }
}, POLL_MS);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  clearInterval(watchdog);
  const lines = progressLines();
  rmSync(progress, { force: true });
  if (verdict === null && code !== 0) {
    // Say why, when Jest itself did not: a signal from outside, or an exit after a passing run.
    const complete = lines.find(([, kind]) => kind === 'complete');
    process.stderr.write(
      `\njest watchdog: Jest ended with ${signal ? `signal ${signal}` : `exit code ${code}`}` +
        `${complete ? `, after a run that ${complete[2] === '1' ? 'passed' : 'failed'}` : ', before its run completed'}\n`,
    );
    // Jest sets a failing exit code only for a failed run: a non-zero code after a run its own
    // results call passed (every suite and test passed) came from code under test setting
    // process.exitCode (an in-band run hosts the platforms in Jest's own process; PGlite's
    // Emscripten runtime sets it when a backend quits). The results decide, said loudly here.
    if (!signal && complete?.[2] === '1') {
      process.stderr.write(
        'jest watchdog: counted as passed (its results say so); something in the test process ' +
          'set process.exitCode\n',
      );
      verdict = 0;
    }
  }
  process.exit(verdict ?? code ?? 1);
});
