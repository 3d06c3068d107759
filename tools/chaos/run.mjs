#!/usr/bin/env node
// The chaos suite (docs/reliability.md): builds the workspace, runs one profile under Jest, and
// whatever happens (a failure, Ctrl-C, its time bound) removes everything the run started.
//   node tools/chaos/run.mjs short     (npm run chaos:short, a few minutes)
//   node tools/chaos/run.mjs long      (npm run chaos)
//   node tools/chaos/run.mjs short -t PostgreSQL    (more arguments go to Jest)
// Everything a run starts is marked with its id (tools/chaos/harness/chaos-run.ts): processes
// carry CARAVEL_CHAOS_RUN=<id> in their environment, files live under <tmp>/caravel-chaos-<id>,
// databases are named caravel_chaos_<id>_*. The sweep ends only those processes, by pid.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

const BOUNDS_MS = { short: 10 * 60_000, long: 75 * 60_000 };
const [profile = 'short', ...jestArgs] = process.argv.slice(2);
if (!(profile in BOUNDS_MS)) {
  process.stderr.write(`usage: run.mjs ${Object.keys(BOUNDS_MS).join('|')}\n`);
  process.exit(2);
}
const root = new URL('../..', import.meta.url).pathname;
const runId = randomBytes(4).toString('hex');
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// `npm test` builds once before the stages that run the built workspace and says so
// (CARAVEL_PREBUILT): a rebuild here would delete dist under the end-to-end tests beside it.
if (process.env.CARAVEL_PREBUILT !== '1') {
  const build = spawnSync(process.execPath, ['tools/scripts/build.mjs'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const jestBin = join(
  dirname(createRequire(import.meta.url).resolve('jest/package.json')),
  'bin/jest.js',
);
const jest = spawn(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    jestBin,
    '-c',
    'tools/chaos/jest.config.cjs',
    '--runInBand',
    `${profile}.chaos-spec`,
    ...jestArgs,
    ...resultsArgs(),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, CARAVEL_CHAOS_RUN: runId } },
);

/** Under `npm test`, the JSON summary its closing line adds up (as tools/scripts/jest.mjs writes). */
function resultsArgs() {
  const dir = process.env.CARAVEL_JEST_RESULTS;
  if (!dir) return [];
  mkdirSync(dir, { recursive: true });
  return ['--json', `--outputFile=${join(dir, `chaos-${runId}.json`)}`];
}

let stopping = false;
/** Asks Jest to stop (SIGTERM), then kills it if it has not gone in 20 s. */
function stopJest(why) {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`\nchaos ${runId}: ${why}; stopping\n`);
  jest.kill('SIGTERM');
  setTimeout(() => jest.kill('SIGKILL'), 20_000).unref();
}
const bound = setTimeout(
  () => stopJest(`over its ${BOUNDS_MS[profile] / 60_000} min bound`),
  BOUNDS_MS[profile],
);
// Ctrl-C reaches Jest and the services too (one process group); this process waits for them.
process.on('SIGINT', () => stopJest('interrupted'));
process.on('SIGTERM', () => stopJest('terminated'));

const code = await new Promise((resolve) => jest.once('exit', (c) => resolve(c ?? 1)));
clearTimeout(bound);
await sweep();
process.exit(code);

/** Ends the run's processes, removes its files and drops its databases. */
async function sweep() {
  const marker = `CARAVEL_CHAOS_RUN=${runId}`;
  let killed = 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let environ;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (!environ.split('\0').includes(marker)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    } catch {
      // It ended in between.
    }
  }
  rmSync(join(tmpdir(), `caravel-chaos-${runId}`), { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: adminUrl });
  let dropped = 0;
  try {
    await admin.connect();
    const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
      `caravel_chaos_${runId}_%`,
    ]);
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      dropped += 1;
    }
  } catch (error) {
    process.stderr.write(`chaos ${runId}: could not drop its databases: ${error.message}\n`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  if (killed || dropped) {
    process.stderr.write(`chaos ${runId}: swept ${killed} process(es), ${dropped} database(s)\n`);
  }
}
