#!/usr/bin/env node
// Runs Jest in ESM mode (NestJS 12, Octokit and Linear are ESM-only): `node tools/scripts/jest.mjs <jest args>`.
// With CARAVEL_JEST_RESULTS set to a folder, each run also writes its JSON summary there, which
// tools/scripts/test.mjs adds up into one closing line.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const jestBin = join(dirname(require.resolve('jest/package.json')), 'bin/jest.js');
const args = process.argv.slice(2);
const resultsDir = process.env.CARAVEL_JEST_RESULTS;
if (resultsDir) {
  mkdirSync(resultsDir, { recursive: true });
  args.push('--json', `--outputFile=${join(resultsDir, `${randomUUID()}.json`)}`);
}
const result = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jestBin, ...args],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
