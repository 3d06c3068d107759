// Module hooks that run a service from its TypeScript sources in a plain `node` process (a medium
// test's child): `.ts` files are transpiled with the Jest preset's swc options (decorator
// metadata included), and a relative `./x.js` import resolves to `./x.ts` beside it. Register with
// `node --conditions=@caravel/source --import <data: URL calling module.register(this file)>`;
// the condition makes workspace packages resolve to their sources.
import { transformSync } from '@swc/core';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import preset from '../../../../jest.preset.cjs';

// The Jest preset's swc options: the child runs the code as the medium tests around it do.
const [, presetOptions] = preset.swc;
const swcOptions = { ...presetOptions, sourceMaps: 'inline' };

export function resolve(specifier, context, nextResolve) {
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (relative && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const source = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (existsSync(fileURLToPath(source))) return { url: source.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = transformSync(await readFile(path, 'utf8'), { ...swcOptions, filename: path });
  return { format: 'module', source: code, shortCircuit: true };
}
