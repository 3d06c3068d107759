#!/usr/bin/env node
import 'reflect-metadata';
import { failStartup } from '@caravel/platform';
import { parseArgs } from 'node:util';
import { runTask } from './commands/run.command.js';
import { startEmbedded } from './commands/start.command.js';

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
  help                       show this text
`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  strict: false,
  options: {
    'data-dir': { type: 'string' },
    port: { type: 'string' },
    repo: { type: 'string' },
    model: { type: 'string' },
    help: { type: 'boolean' },
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
  }).catch((error: unknown) => failStartup('caravel run', error));
  process.exit(report.outcome === 'completed' ? 0 : 1);
} else {
  process.stderr.write(`caravel: unknown command '${command}'\n\n${USAGE}`);
  process.exit(2);
}
