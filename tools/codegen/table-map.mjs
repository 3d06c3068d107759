#!/usr/bin/env node
// Writes the map of which tables each service's code touches
// (libs/db/src/grants/service-tables.ts; `npm run db:table-map`), derived from the code by
// libs/db/src/grants/table-map.derive.ts. The typecheck (tools/scripts/typecheck.mjs) fails when the
// committed map is stale.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { buildWorkspace, root } from './build-workspace.mjs';

const FILE = 'libs/db/src/grants/service-tables.ts';

buildWorkspace();
const { deriveServiceTables } = await import(`${root}libs/db/dist/grants/table-map.derive.js`);
const { SERVICE_TABLES, renderServiceTables } = await import(
  `${root}libs/db/dist/grants/service-tables.js`
);
const { map, problems } = deriveServiceTables(root, Object.keys(SERVICE_TABLES));
if (problems.length > 0) {
  process.stderr.write(`tables that cannot be read off the code:\n${problems.join('\n')}\n`);
  process.exit(1);
}
const source = await readFile(`${root}${FILE}`, 'utf8');
const block = /(export const SERVICE_TABLES = \{\n)[\s\S]*?(\} as const)/;
if (!block.test(source)) throw new Error(`${FILE}: no SERVICE_TABLES block to replace`);
await writeFile(`${root}${FILE}`, source.replace(block, `$1${renderServiceTables(map)}$2`));
spawnSync('npx', ['prettier', '--write', FILE], { cwd: root, stdio: 'ignore' });
process.stdout.write(`wrote ${FILE}\n`);
