#!/usr/bin/env node
import { runCli, type CliIo } from './commands/cli.js';
import { tierUpOnlyHotWebAssembly, withSmallYoungGeneration } from './commands/startup-memory.js';

const io: CliIo = {
  // Readable lines for a person (the embedded host and every command); warnings and errors on
  // stderr, as Nest's console logger did. Installed only when a command runs: pino and Nest's
  // logger would triple the time `caravel --help` takes.
  prepare: async () => {
    const { installLogger } = await import('@caravel/logging');
    installLogger({
      service: 'caravel',
      format: 'pretty',
      errorDestination: process.stderr,
      env: process.env,
    });
  },
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

const argv = process.argv.slice(2);
// Before any command opens PGlite: its WebAssembly is compiled with the budget in effect.
tierUpOnlyHotWebAssembly();
const command = () => runCli(argv, process.env, io);
// `caravel start` returns once the host is ready: its boot runs with a small young generation.
const outcome = argv[0] === 'start' ? await withSmallYoungGeneration(command) : await command();
if (outcome !== 'serving') process.exit(outcome);
