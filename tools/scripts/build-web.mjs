#!/usr/bin/env node
// Builds the dashboard's web app with Vite (apps/dashboard/vite.config.mjs), only when its inputs
// changed: the output is kept under tmp/dashboard-web/<hash of the inputs>/, so a build whose web
// sources, Vite config and lockfile are unchanged copies it instead of running Vite again.
//   node tools/scripts/build-web.mjs            prints the folder of the up-to-date build
//   node tools/scripts/build-web.mjs --out DIR  also copies it to DIR
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const app = join(root, 'apps', 'dashboard');
const cache = join(root, 'tmp', 'dashboard-web');
const INPUTS = [
  join(app, 'src', 'web'),
  join(app, 'vite.config.mjs'),
  join(root, 'package-lock.json'),
  fileURLToPath(import.meta.url),
];

async function* files(path) {
  if (!existsSync(path)) return;
  if (!(await stat(path)).isDirectory()) {
    yield path;
    return;
  }
  for (const name of (await readdir(path)).sort()) yield* files(join(path, name));
}

/** A hash of every input's path and bytes. */
async function inputsHash() {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for await (const file of files(input)) {
      hash
        .update(relative(root, file))
        .update('\0')
        .update(await readFile(file))
        .update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

/** The folder of the web app built from today's inputs, building it first if none is. */
export async function dashboardWeb() {
  const done = join(cache, await inputsHash());
  if (existsSync(join(done, 'index.html'))) return done;
  const { build } = await import('vite');
  const building = join(cache, `.building-${process.pid}`);
  await build({
    configFile: join(app, 'vite.config.mjs'),
    build: { outDir: building },
  });
  for (const old of await readdir(cache)) {
    if (!old.startsWith('.')) await rm(join(cache, old), { recursive: true, force: true });
  }
  await rename(building, done);
  return done;
}

/** Builds (or reuses) the web app and copies it to `out`. */
export async function buildDashboardWeb(out) {
  const built = await dashboardWeb();
  await mkdir(out, { recursive: true });
  await cp(built, out, { recursive: true });
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const built = at > 0 ? await buildDashboardWeb(process.argv[at + 1]) : await dashboardWeb();
  process.stdout.write(`${built}\n`);
}
