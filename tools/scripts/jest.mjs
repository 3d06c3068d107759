#!/usr/bin/env node
// Runs Jest in ESM mode (NestJS 12, Octokit and Linear are ESM-only): `node tools/scripts/jest.mjs <jest args>`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const jestBin = join(dirname(require.resolve('jest/package.json')), 'bin/jest.js');
const result = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jestBin, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
