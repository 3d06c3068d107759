// Runs a Jest suite that starts services as processes (the chaos suite, the scale-out measure) in
// a bounded time and, whatever happens (a failure, Ctrl-C, the bound), removes everything the run
// started. Everything a run starts is marked with its id (tools/chaos/harness/chaos-run.ts):
// processes carry CARAVEL_CHAOS_RUN=<id> in their environment, files live under
// <tmp>/caravel-chaos-<id>, databases are named caravel_chaos_<id>_*. The sweep ends only those
// processes, by pid.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

const root = new URL('../..', import.meta.url).pathname;
const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh run id (what the sweep looks for). */
export const newRunId = () => randomBytes(4).toString('hex');

/**
 * Builds the workspace (unless `npm test` did), runs `pattern` under the Jest `config` with the
 * run's marker and `env`, stops Jest after `boundMs`, sweeps, and resolves with Jest's exit code.
 */
export async function runMarkedSuite({ label, runId, config, pattern, boundMs, jestArgs, env }) {
  // `npm test` builds once before the stages that run the built workspace and says so
  // (CARAVEL_PREBUILT): a rebuild here would delete dist under the end-to-end tests beside it.
  if (process.env.CARAVEL_PREBUILT !== '1') {
    const build = spawnSync(process.execPath, ['tools/scripts/build.mjs'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (build.status !== 0) return build.status ?? 1;
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
      config,
      '--runInBand',
      pattern,
      ...jestArgs,
      ...resultsArgs(`${label}-${runId}`),
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...env, CARAVEL_CHAOS_RUN: runId } },
  );
  let stopping = false;
  /** Asks Jest to stop (SIGTERM), then kills it if it has not gone in 20 s. */
  const stopJest = (why) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${label} ${runId}: ${why}; stopping\n`);
    jest.kill('SIGTERM');
    setTimeout(() => jest.kill('SIGKILL'), 20_000).unref();
  };
  const bound = setTimeout(
    () => stopJest(`over its ${Math.round(boundMs / 60_000)} min bound`),
    boundMs,
  );
  // Ctrl-C reaches Jest and the services too (one process group); this process waits for them.
  process.on('SIGINT', () => stopJest('interrupted'));
  process.on('SIGTERM', () => stopJest('terminated'));
  const code = await new Promise((resolve) => jest.once('exit', (c) => resolve(c ?? 1)));
  clearTimeout(bound);
  await sweep(label, runId);
  return code;
}

/** Under `npm test`, the JSON summary its closing line adds up (as tools/scripts/jest.mjs writes). */
function resultsArgs(name) {
  const dir = process.env.CARAVEL_JEST_RESULTS;
  if (!dir) return [];
  mkdirSync(dir, { recursive: true });
  return ['--json', `--outputFile=${join(dir, `${name}.json`)}`];
}

/** Ends the run's processes, removes its files and drops its databases. */
async function sweep(label, runId) {
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
    process.stderr.write(`${label} ${runId}: could not drop its databases: ${error.message}\n`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  if (killed || dropped) {
    process.stderr.write(
      `${label} ${runId}: swept ${killed} process(es), ${dropped} database(s)\n`,
    );
  }
}
