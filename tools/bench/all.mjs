#!/usr/bin/env node
// Every bench, each in a short configuration, then one table of their ratios to the floors they
// measured in the same run (`npm run bench`; expects a built workspace). Each bench's own report
// goes to <out>/<bench>.log; a bench that fails (it checks it did the work it reports) is listed
// as failed and makes this exit 1 once the others have run.
//   node tools/bench/all.mjs [--only startup,idle] [--out DIR]
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadAverage, SUMMARY_PREFIX } from './summary.mjs';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    out: { type: 'string', default: join(tmpdir(), 'caravel-bench') },
  },
});

/** Each bench with the arguments that keep it to a minute or two on a shared machine. */
const BENCHES = [
  ['startup', ['tools/bench/startup/run.mjs', '--runs', '1']],
  ['idle', ['tools/bench/idle/run.mjs', '--seconds', '60']],
  ['bus', ['tools/bench/bus/run.mjs', '--messages', '500']],
  [
    'ingress',
    [
      'tools/bench/ingress/run.mjs',
      '--burst',
      '100',
      '--rate',
      '100',
      '--seconds',
      '5',
      '--rate-runs',
      '1',
      '--warmup-seconds',
      '3',
      '--peak-seconds',
      '3',
    ],
  ],
  ['runner', ['--expose-gc', 'tools/bench/runner/run.mjs', '--runs', '3', '--threads', '50']],
  [
    'sandbox',
    [
      'tools/bench/sandbox/run.mjs',
      '--iterations',
      '100',
      '--creations',
      '5',
      '--concurrent',
      '10',
    ],
  ],
  ['swegen', ['tools/bench/swegen/run.mjs', '--commits', '1000', '--runs', '3']],
  ['dashboard', ['tools/bench/dashboard/run.mjs', '--steps', '40']],
  ['cli-run', ['tools/bench/cli-run/run.mjs', '--runs', '1']],
].filter(([name]) => !values.only || values.only.split(',').includes(name));

const root = new URL('../..', import.meta.url).pathname;
mkdirSync(values.out, { recursive: true });

/** Runs one bench; its summary, or the reason it has none. */
function runBench(name, args) {
  return new Promise((resolve) => {
    const log = createWriteStream(join(values.out, `${name}.log`));
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let summary = null;
    let pending = '';
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines)
        if (line.startsWith(SUMMARY_PREFIX))
          summary = JSON.parse(line.slice(SUMMARY_PREFIX.length));
    });
    child.stderr.pipe(log, { end: false });
    child.once('exit', (code) => {
      log.end();
      const seconds = Math.round((Date.now() - started) / 1000);
      if (code === 0 && summary) resolve({ name, seconds, summary });
      else resolve({ name, seconds, failed: `exit ${code}${summary ? '' : ', no summary'}` });
    });
  });
}

const fmt = (n) =>
  n === null || n === undefined ? '—' : Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2);

const results = [];
for (const [name, args] of BENCHES) {
  process.stdout.write(`bench ${name}… `);
  const result = await runBench(name, args);
  process.stdout.write(
    `${result.failed ? `FAILED (${result.failed})` : 'done'} in ${result.seconds} s\n`,
  );
  results.push(result);
}

const lines = [
  `all benches (load ${loadAverage()} at the end; reports in ${values.out})`,
  '| bench | load | figure | caravel | floor (same run) | ratio | goal | met |',
  '|---|---|---|---|---|---|---|---|',
];
for (const result of results) {
  if (result.failed) {
    lines.push(`| ${result.name} | | FAILED: ${result.failed} (see its log) | | | | | |`);
    continue;
  }
  const { load, rows } = result.summary;
  for (const r of rows) {
    const floor = r.floorValue === undefined ? r.floor : `${r.floor} ${fmt(r.floorValue)}`;
    const met = r.met === null ? '' : r.met ? 'yes' : 'no';
    lines.push(
      `| ${result.name} | ${load} | ${r.what} | ${fmt(r.value)} | ${floor} | ${r.ratio ? `x${fmt(r.ratio)}` : '—'} | ${r.goal ?? ''} | ${met} |`,
    );
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
if (results.some((r) => r.failed)) process.exit(1);
