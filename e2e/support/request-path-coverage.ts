import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './processes.js';

/** One function of a script, as V8's precise coverage reports it (`NODE_V8_COVERAGE`). */
interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; endOffset: number; count: number }[];
}

interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

/** The production files `docs/request-path.md` lists as the path's steps, in order. */
export async function requestPathFiles(): Promise<string[]> {
  const page = await readFile(join(repoRoot, 'docs', 'request-path.md'), 'utf8');
  return [...page.matchAll(/^\d+\. `([^`]+\.ts)`/gm)].map((match) => match[1] ?? '');
}

/** Where the build puts a source file of an app or library (`src/x.ts` → `dist/x.js`). */
function builtFileOf(source: string): string {
  return join(repoRoot, source.replace('/src/', '/dist/').replace(/\.ts$/, '.js'));
}

/**
 * Code a request ran, as opposed to code every process runs when it loads and boots: a named
 * function (not the module body), not a constructor (Nest builds every provider at boot), not
 * the decorator helpers or field initialisers, not a lifecycle hook.
 */
function ranForARequest(fn: FunctionCoverage): boolean {
  const name = fn.functionName;
  // `_ts_decorate`/`_ts_metadata`/`_ts_param` (the build's decorator helpers, run at load) and
  // V8's `<instance_members_initializer>` (field initialisers, run by the constructor).
  if (name === '' || /^[A-Z_<]/.test(name)) return false;
  if (/^on(Module|Application)/.test(name)) return false;
  return (fn.ranges[0]?.count ?? 0) > 0;
}

/**
 * The listed files none of whose request-time code ran in the processes that wrote their
 * coverage to `dir` (each process writes it when it exits).
 */
export async function stepsNotRun(dir: string, files: readonly string[]): Promise<string[]> {
  const scripts: ScriptCoverage[] = [];
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.json')) continue;
    const report = JSON.parse(await readFile(join(dir, name), 'utf8')) as {
      result: ScriptCoverage[];
    };
    scripts.push(...report.result);
  }
  return files.filter((file) => {
    const url = pathToFileURL(builtFileOf(file)).href;
    return !scripts.some((script) => script.url === url && script.functions.some(ranForARequest));
  });
}
