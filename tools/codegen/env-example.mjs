#!/usr/bin/env node
// Writes .env.example from the config schemas (`npm run env:example`). The cli's unit test fails
// when the committed file is stale.
import { writeFile } from 'node:fs/promises';
import { buildWorkspace, root } from './build-workspace.mjs';

buildWorkspace();
const { ENV_SECTIONS } = await import('@caravel/cli');
const { renderEnvExample } = await import('@caravel/config');
await writeFile(`${root}.env.example`, renderEnvExample(ENV_SECTIONS));
process.stdout.write('wrote .env.example\n');
