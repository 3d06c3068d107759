#!/usr/bin/env node
import 'reflect-metadata';
import { failStartup } from '@caravel/platform';
import { parseArgs } from 'node:util';
import { startEmbedded } from './commands/start.command.js';

const USAGE = `Usage: caravel <command> [options]

Commands:
  start            run every service in this process (embedded bus + PGlite)
    --data-dir D   where data lives (default ./.caravel, or CARAVEL_DATA_DIR)
    --port N       HTTP port (default 3000, or PORT)
  help             show this text
`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  strict: false,
  options: { 'data-dir': { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean' } },
});
const command = values.help ? 'help' : (positionals[0] ?? 'start');

if (command === 'help') {
  process.stdout.write(USAGE);
} else if (command === 'start') {
  const port = typeof values.port === 'string' ? Number(values.port) : undefined;
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  await startEmbedded(process.env, { dataDir, port }).catch((error: unknown) =>
    failStartup('caravel', error),
  );
} else {
  process.stderr.write(`caravel: unknown command '${command}'\n\n${USAGE}`);
  process.exit(2);
}
