#!/usr/bin/env node
// `npm start`: builds the workspace (a second or two) and starts Caravel embedded.
//   npm start                                   caravel start
//   npm start -- --port 4000 --data-dir D       options only: caravel start --port 4000 --data-dir D
//   npm start -- help | run … | attach …        a command: passed through as it is
import { spawnSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const build = spawnSync(process.execPath, ['tools/scripts/build.mjs'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const args = process.argv.slice(2);
const command = args.length === 0 || args[0].startsWith('-') ? ['start', ...args] : args;
const cli = spawnSync(process.execPath, ['apps/cli/dist/main.js', ...command], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(cli.status ?? 1);
