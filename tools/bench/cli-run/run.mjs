#!/usr/bin/env node
// First-run benchmark: the README's `caravel run` example (the scripted model fixing
// examples/sample-repo in five steps, on the embedded platform started in the process, a fresh
// data directory each time) against the same steps as plain shell commands in a copy of the
// repository (the floor), in the same run.
//   node tools/scripts/build.mjs && node tools/bench/cli-run/run.mjs [--runs 3]
// Fails loudly when the work was not done: `caravel run` did not exit 0 or did not print the
// fix's diff, or the floor's tests did not pass after the fix.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { printSummary, row } from '../summary.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
if (!(runs >= 1)) fail('--runs must be >= 1');
const root = new URL('../../..', import.meta.url).pathname;
const TASK = 'slugify leaves a trailing dash; make the tests pass';
const FIXED = ".replace(/^-+|-+$/g, '');";
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function fail(message) {
  process.stderr.write(`cli-run bench FAILED: ${message}\n`);
  process.exit(1);
}

/** Runs a command to its end; its wall time in seconds, or a loud failure. */
function timed(command, args, options = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0)
    fail(`${command} ${args.join(' ')} exited ${result.status}\n${result.stdout}${result.stderr}`);
  return { seconds, output: result.stdout };
}

/** The README's command, its data in a fresh temporary directory. */
function caravelRun() {
  const data = mkdtempSync(join(tmpdir(), 'caravel-bench-run-'));
  try {
    const { seconds, output } = timed(
      process.execPath,
      [
        'apps/cli/dist/main.js',
        'run',
        '--repo',
        'examples/sample-repo',
        '--data-dir',
        data,
        '--model',
        'scripted:examples/fix-sample.script.yaml',
        TASK,
      ],
      { cwd: root },
    );
    if (!output.includes(`+    ${FIXED}`)) fail(`caravel run did not print the fix:\n${output}`);
    return seconds;
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}

/** The script's five steps as shell commands: look and test, edit, test, commit on a branch. */
function plainSteps() {
  const repo = mkdtempSync(join(tmpdir(), 'caravel-bench-floor-'));
  try {
    cpSync(join(root, 'examples/sample-repo'), repo, { recursive: true });
    const git = (...args) => [
      'git',
      ['-C', repo, '-c', 'user.name=b', '-c', 'user.email=b@b', ...args],
    ];
    const started = performance.now();
    timed(...git('init', '-q'));
    timed(...git('add', '-A'));
    timed(...git('commit', '-qm', 'base'));
    spawnSync('sh', ['-c', 'cat src/slugify.js && npm test'], { cwd: repo, stdio: 'ignore' });
    const file = join(repo, 'src/slugify.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace(".replace(/^-/, '');", FIXED));
    timed('npm', ['test'], { cwd: repo });
    timed(...git('checkout', '-qb', 'caravel/fix'));
    timed(...git('commit', '-qam', 'fix(slugify): drop trailing dashes'));
    return (performance.now() - started) / 1000;
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

const caravel = [];
const floor = [];
for (let i = 0; i < runs; i += 1) {
  floor.push(plainSteps());
  caravel.push(caravelRun());
}
const [c, f] = [median(caravel), median(floor)];
process.stdout.write(
  `cli-run bench: the README's caravel run example, ${runs} run(s), median\n` +
    `  plain shell steps   ${f.toFixed(2)} s\n` +
    `  caravel run         ${c.toFixed(2)} s   x${(c / f).toFixed(1)} (goal < 15 s)\n`,
);
printSummary('cli-run', [
  row({
    what: 'caravel run, README example (s)',
    value: c,
    floor: 'the same steps in a shell',
    floorValue: f,
    goal: '< 15 s',
    met: c < 15,
  }),
]);
