#!/usr/bin/env node
import { runCli, type CliIo } from './commands/cli.js';

const io: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  stdin: process.stdin,
  ...(process.stdout.isTTY
    ? {
        terminal: {
          get columns() {
            return process.stdout.columns;
          },
          write: (text: string) => process.stdout.write(text),
        },
      }
    : {}),
  onSignal: (handler) => {
    process.on('SIGINT', () => handler('SIGINT'));
    process.on('SIGTERM', () => handler('SIGTERM'));
  },
};

const outcome = await runCli(process.argv.slice(2), process.env, io);
if (outcome !== 'serving') process.exit(outcome);
