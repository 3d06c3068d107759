#!/usr/bin/env node
// Transpiles TypeScript sources to ESM JavaScript with decorator metadata (which tsx/esbuild lack):
//   node tools/scripts/build.mjs                 every project under apps/ and libs/
//   node tools/scripts/build.mjs libs/contracts  one project
// Each project's src/**/*.ts (tests excluded) becomes <project>/dist/**/*.js; workspace imports
// (@caravel/x) stay bare and resolve at run time to the built dist through package exports.
// The dashboard's web app (apps/dashboard/src/web, React) is not transpiled file by file: Vite
// bundles it into apps/dashboard/dist/web (tools/scripts/build-web.mjs, rebuilt only when its
// sources changed).
import { transformFile } from '@swc/core';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TEST_FILE = /\.(spec|medium-spec|e2e-spec)\.ts$/;
const DASHBOARD = join(root, 'apps', 'dashboard');
/** Source folders a bundler builds instead (see above). */
const BUNDLED = new Set([join(DASHBOARD, 'src', 'web')]);

const swcOptions = {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: true,
};

async function* sources(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!BUNDLED.has(path)) yield* sources(path);
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.d.ts') &&
      !TEST_FILE.test(entry.name)
    ) {
      yield path;
    }
  }
}

async function buildProject(projectDir) {
  const src = join(projectDir, 'src');
  const dist = join(projectDir, 'dist');
  await rm(dist, { recursive: true, force: true });
  let count = 0;
  for await (const file of sources(src)) {
    const out = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
    const { code, map } = await transformFile(file, { ...swcOptions, filename: file });
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, `${code}\n//# sourceMappingURL=${out.split('/').pop()}.map\n`);
    if (map) await writeFile(`${out}.map`, map);
    count += 1;
  }
  if (projectDir === DASHBOARD) {
    const { buildDashboardWeb } = await import('./build-web.mjs');
    await buildDashboardWeb(join(dist, 'web'));
  }
  return count;
}

async function projects() {
  const found = [];
  for (const group of ['libs', 'apps']) {
    for (const entry of await readdir(join(root, group), { withFileTypes: true })) {
      if (entry.isDirectory()) found.push(join(group, entry.name));
    }
  }
  return found;
}

const targets = process.argv.slice(2);
const list = targets.length ? targets : await projects();
const started = Date.now();
let files = 0;
for (const project of list) files += await buildProject(join(root, project));
process.stdout.write(
  `built ${files} files in ${list.length} projects (${Date.now() - started} ms)\n`,
);
