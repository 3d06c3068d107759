#!/usr/bin/env node
// `npm start`: builds the workspace (a second or two) and starts Caravel embedded.
// Extra arguments go to `caravel start`, e.g. `npm start -- --port 4000 --data-dir /var/lib/caravel`.
import { spawnSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const build = spawnSync(process.execPath, ['tools/scripts/build.mjs'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const start = spawnSync(
  process.execPath,
  ['apps/cli/dist/main.js', 'start', ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
process.exit(start.status ?? 1);
