#!/usr/bin/env node
// Writes .env.example from the config schemas (`npm run env:example`). The cli's unit test fails
// when the committed file is stale.
import { writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';

const root = new URL('../..', import.meta.url).pathname;
const build = spawnSync(process.execPath, ['tools/scripts/build.mjs'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(1);
const { ENV_SECTIONS } = await import('@caravel/cli');
const { renderEnvExample } = await import('@caravel/config');
await writeFile(`${root}.env.example`, renderEnvExample(ENV_SECTIONS));
process.stdout.write('wrote .env.example\n');
