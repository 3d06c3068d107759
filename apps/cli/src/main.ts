#!/usr/bin/env node
import 'reflect-metadata';
import { isAppError } from '@caravel/errors';
import { failStartup } from '@caravel/platform';
import { parseArgs } from 'node:util';
import { attachThread } from './commands/attach.command.js';
import { replayTrajectory } from './commands/replay.command.js';
import { runTask } from './commands/run.command.js';
import { startEmbedded } from './commands/start.command.js';
import { exportTrajectory } from './commands/trajectory.command.js';
import { runSwegen } from './commands/swegen/swegen.command.js';

const USAGE = `Usage: caravel <command> [options]

Commands:
  start                      run every service in this process (embedded bus + PGlite)
    --data-dir D             where data lives (default ./.caravel, or CARAVEL_DATA_DIR)
    --port N                 HTTP port (default 3000, or PORT)
  run --repo PATH "TASK"     run one task end to end on the embedded platform, show each step,
                             then the branch and its diff
    --model REF              e.g. anthropic:claude-sonnet-4-5, scripted:examples/fix-sample.script.yaml
                             (default CARAVEL_MODEL)
    --data-dir D             keep the run's data here (default: a fresh temporary directory)
  trajectory export THREAD   write a run's SWE-agent .traj from the recorded events
    --run ID                 that run (default: the thread's last finished run)
    --out FILE               where (default THREAD.traj); --data-dir D or --database-url URL
  replay THREAD|FILE.traj    re-run the recorded tool calls in a fresh sandbox and compare the
                             final patch with the recorded submission (exit 1 when it differs)
    --repo PATH, --base SHA  the starting point (default: the recorded clone URL and commit)
    --sandbox bwrap|local    (default bwrap); --data-dir D or --database-url URL for a thread
  swegen create|validate|farm|analyze
                             merged PRs to Harbor tasks: create one, validate it (NOP/Oracle),
                             farm a repository (publishing optional), analyze with agent trials
                             (caravel swegen help)
  attach THREAD              follow a thread live and take part: a line is a message for the
                             agent, !CMD runs in the thread's sandbox between its steps
    --url URL                the dashboard (default http://127.0.0.1:3000)
    --as NAME                who you are in the thread (default $USER)
    --token T                DASHBOARD_TOKEN (default CARAVEL_DASHBOARD_TOKEN)
  help                       show this text
`;

/** A command that could not do its work: one line naming why (a stack only for a real bug), exit 1. */
function fail(command: string, error: unknown): never {
  const message = isAppError(error)
    ? error.message
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  process.stderr.write(`${command}: ${message}\n`);
  process.exit(1);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  strict: false,
  options: {
    'data-dir': { type: 'string' },
    port: { type: 'string' },
    repo: { type: 'string' },
    model: { type: 'string' },
    help: { type: 'boolean' },
    run: { type: 'string' },
    out: { type: 'string' },
    'database-url': { type: 'string' },
    base: { type: 'string' },
    sandbox: { type: 'string' },
    url: { type: 'string' },
    as: { type: 'string' },
    token: { type: 'string' },
  },
});
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const command = values.help ? 'help' : (positionals[0] ?? 'start');

if (command === 'help') {
  process.stdout.write(USAGE);
} else if (command === 'start') {
  const port = str(values.port) === undefined ? undefined : Number(values.port);
  await startEmbedded(process.env, { dataDir: str(values['data-dir']), port }).catch(
    (error: unknown) => failStartup('caravel', error),
  );
} else if (command === 'run') {
  const repo = str(values.repo);
  const task = positionals.slice(1).join(' ').trim();
  if (!repo || !task) {
    process.stderr.write(`caravel run needs --repo PATH and a task\n\n${USAGE}`);
    process.exit(2);
  }
  const report = await runTask(process.env, {
    repo,
    task,
    model: str(values.model),
    dataDir: str(values['data-dir']),
  }).catch((error: unknown) => fail('caravel run', error));
  process.exit(report.outcome === 'completed' ? 0 : 1);
} else if (command === 'trajectory' && positionals[1] === 'export' && positionals[2]) {
  const written = await exportTrajectory({
    threadId: positionals[2],
    runId: str(values.run),
    out: str(values.out),
    dataDir: str(values['data-dir']),
    databaseUrl: str(values['database-url']),
  }).catch((error: unknown) => fail('caravel trajectory export', error));
  process.stdout.write(`run ${written.runId}: trajectory written to ${written.file}\n`);
} else if (command === 'replay' && positionals[1]) {
  const sandbox = str(values.sandbox) ?? 'bwrap';
  if (sandbox !== 'bwrap' && sandbox !== 'local') {
    process.stderr.write(`caravel replay: --sandbox must be bwrap or local, not '${sandbox}'\n`);
    process.exit(2);
  }
  const report = await replayTrajectory({
    source: positionals[1],
    sandbox,
    repo: str(values.repo),
    base: str(values.base),
    dataDir: str(values['data-dir']),
    databaseUrl: str(values['database-url']),
  }).catch((error: unknown) => fail('caravel replay', error));
  process.exit(report.identical ? 0 : 1);
} else if (command === 'attach' && positionals[1]) {
  await attachThread({
    url: str(values.url) ?? `http://127.0.0.1:${process.env['PORT'] ?? '3000'}`,
    threadId: positionals[1],
    as: str(values.as) ?? process.env['USER'] ?? 'operator',
    token: str(values.token) ?? process.env['CARAVEL_DASHBOARD_TOKEN'],
    input: process.stdin,
    write: (line) => process.stdout.write(`${line}\n`),
  }).catch((error: unknown) => fail('caravel attach', error));
  process.exit(0);
} else if (command === 'swegen') {
  process.exit(
    await runSwegen(process.argv.slice(process.argv.indexOf('swegen') + 1), process.env),
  );
} else {
  process.stderr.write(`caravel: unknown command '${command}'\n\n${USAGE}`);
  process.exit(2);
}
