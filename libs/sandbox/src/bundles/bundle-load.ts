import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandboxError } from '../sandbox.errors.js';
import { parseBundleConfig, type BundleConfig } from './bundle-config.js';

/** One file of a bundle, read as data (never run on the host). */
export interface BundleFile {
  /** Relative to the bundle's folder, `/`-separated. */
  readonly path: string;
  readonly content: Buffer;
  /** Under `bin/` or executable on the host: installed executable. */
  readonly executable: boolean;
}

/** The program a `bin/` file names in its `#!` line. */
export interface BundleInterpreter {
  /** The file, e.g. `bin/open`. */
  readonly file: string;
  /** The `#!` line without `#!`, e.g. `/usr/bin/env python3`. */
  readonly line: string;
  /** An absolute program (`/bin/bash`), or a name looked up on PATH through `env` (`python3`). */
  readonly program: string;
}

/** A SWE-agent tool bundle read from the host: its config and its files. */
export interface ToolBundle {
  readonly name: string;
  /** The host folder it was read from. */
  readonly source: string;
  readonly config: BundleConfig;
  readonly files: readonly BundleFile[];
  readonly hasInstallScript: boolean;
  readonly interpreters: readonly BundleInterpreter[];
}

/** A bundle is small: scripts and a little library code. */
const MAX_FILES = 2000;
const MAX_BYTES = 32 * 1024 * 1024;
const BUNDLE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

async function isFile(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isFile() === true;
}

/**
 * The folder of bundle `name` under `toolsDir`: `<toolsDir>/<name>` (a folder of bundles) or
 * `<toolsDir>/tools/<name>` (a SWE-agent checkout).
 */
export async function findBundle(toolsDir: string, name: string): Promise<string> {
  if (!BUNDLE_NAME.test(name)) {
    throw sandboxError('invalid_input', `'${name}' is not a bundle name (a folder name)`);
  }
  for (const dir of [join(toolsDir, name), join(toolsDir, 'tools', name)]) {
    if (await isFile(join(dir, 'config.yaml'))) return dir;
  }
  throw sandboxError(
    'file_not_found',
    `no SWE-agent bundle '${name}' in ${toolsDir} (looked for ${name}/config.yaml and tools/${name}/config.yaml)`,
    { toolsDir, bundle: name },
  );
}

/** Every regular file under `dir`; a link or a device is refused (a bundle is copied as data). */
async function readTree(root: string, bundle: string): Promise<BundleFile[]> {
  const files: BundleFile[] = [];
  let bytes = 0;
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(join(root, relative), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        await walk(path);
        continue;
      }
      if (!entry.isFile()) {
        throw sandboxError(
          'invalid_input',
          `bundle '${bundle}': ${path} is not a plain file or folder (links are not copied)`,
          { bundle, path },
        );
      }
      const info = await lstat(join(root, path));
      bytes += info.size;
      if (files.length >= MAX_FILES || bytes > MAX_BYTES) {
        throw sandboxError(
          'invalid_input',
          `bundle '${bundle}' is larger than ${MAX_FILES} files or ${MAX_BYTES / 1024 / 1024} MiB`,
          { bundle },
        );
      }
      const executable = path.startsWith('bin/') || (info.mode & 0o111) !== 0;
      files.push({ path, content: await readFile(join(root, path)), executable });
    }
  };
  await walk('');
  return files;
}

/** The interpreter a script's `#!` line asks for (`env -S` and interpreter flags allowed). */
export function interpreterOf(file: string, content: Buffer): BundleInterpreter | null {
  const head = content.subarray(0, 256).toString('utf8');
  if (!head.startsWith('#!')) return null;
  const line = head.slice(2).split('\n')[0]?.trim() ?? '';
  const words = line.split(/\s+/).filter((word) => word !== '');
  const first = words[0];
  if (first === undefined) return null;
  if (!first.endsWith('/env')) return { file, line, program: first };
  const named = words.slice(1).find((word) => !word.startsWith('-'));
  return { file, line, program: named ?? first };
}

/**
 * Reads bundle `name` from `toolsDir` as SWE-agent lays bundles out: `config.yaml`, `bin/`
 * (one program per command), optional `install.sh` and `lib/`. Nothing is run: the files are
 * data, installed into a sandbox later.
 * @throws AppError naming the bundle: not found, bad config, no `bin/`, a link, too large.
 */
export async function loadBundle(toolsDir: string, name: string): Promise<ToolBundle> {
  const source = await findBundle(toolsDir, name);
  const configFile = join(source, 'config.yaml');
  const config = parseBundleConfig(await readFile(configFile, 'utf8'), configFile);
  const binInfo = await lstat(join(source, 'bin')).catch(() => undefined);
  const declares = config.commands.length > 0 || config.stateCommand !== null;
  if (declares && binInfo?.isDirectory() !== true) {
    throw sandboxError(
      'invalid_input',
      `bundle '${name}' (${source}) has no bin/ folder for its commands (${config.commands.map((c) => c.name).join(', ') || config.stateCommand})`,
      { bundle: name },
    );
  }
  const files = await readTree(source, name);
  const interpreters = files
    .filter((file) => file.path.startsWith('bin/'))
    .map((file) => interpreterOf(file.path, file.content))
    .filter((found): found is BundleInterpreter => found !== null);
  return {
    name,
    source,
    config,
    files,
    hasInstallScript: files.some((file) => file.path === 'install.sh'),
    interpreters,
  };
}

/**
 * Loads bundles in order and refuses two that declare the same command (as SWE-agent's
 * `ToolConfig` does).
 */
export async function loadBundles(
  toolsDir: string,
  names: readonly string[],
): Promise<ToolBundle[]> {
  const bundles: ToolBundle[] = [];
  const owners = new Map<string, string>();
  for (const name of names) {
    if (bundles.some((bundle) => bundle.name === name)) continue;
    const bundle = await loadBundle(toolsDir, name);
    for (const command of bundle.config.commands) {
      const owner = owners.get(command.name);
      if (owner !== undefined) {
        throw sandboxError(
          'invalid_input',
          `bundles '${owner}' and '${name}' both declare the command '${command.name}'`,
        );
      }
      owners.set(command.name, name);
    }
    bundles.push(bundle);
  }
  return bundles;
}
