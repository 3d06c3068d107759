import { join, posix } from 'node:path';
import { sandboxError } from '../sandbox.errors.js';
import type { WorkdirFs } from './workdir-fs.js';

/** A workdir as the host stores it and as commands inside the sandbox see it. */
export interface WorkdirRoots {
  /** Absolute host path of the workdir. */
  readonly host: string;
  /** Absolute path of the same directory inside the sandbox (equal to `host` for `local`). */
  readonly inner: string;
}

/** A path resolved inside the workdir. */
export interface ResolvedPath {
  /** Host path to operate on; every existing component of it is a real directory or file. */
  readonly hostPath: string;
  /** The path relative to the workdir, `/`-separated ('' for the workdir itself). */
  readonly relative: string;
  /** Whether the final component exists. */
  readonly exists: boolean;
}

const MAX_SYMLINK_HOPS = 40;

function outside(path: string): Error {
  return sandboxError(
    'path_outside_workdir',
    `path ${JSON.stringify(path)} is outside the workdir`,
    {
      path,
    },
  );
}

/** Splits a requested path into components relative to the workdir, or refuses it. */
function initialComponents(roots: WorkdirRoots, path: string): string[] {
  if (typeof path !== 'string' || path.includes('\0')) {
    throw sandboxError('invalid_input', 'a path must be a string without NUL bytes');
  }
  if (!path.startsWith('/')) return path.split('/');
  for (const root of new Set([roots.inner, roots.host])) {
    if (path === root) return [];
    if (path.startsWith(`${root}/`)) return path.slice(root.length + 1).split('/');
  }
  throw outside(path);
}

/** The components a symlink target stands for, relative to the workdir, or a refusal. */
function symlinkComponents(roots: WorkdirRoots, target: string): string[] {
  if (!target.startsWith('/')) return target.split('/');
  const normal = posix.normalize(target);
  if (normal === roots.inner) return [];
  if (normal.startsWith(`${roots.inner}/`)) return normal.slice(roots.inner.length + 1).split('/');
  throw outside(target);
}

/**
 * Resolves a path the way the kernel would inside the sandbox, one component at a time, following
 * symlinks (absolute targets are read as sandbox paths), and refuses any path that would leave the
 * workdir on the way: through `..`, an absolute path elsewhere, or a symlink pointing out.
 */
export async function resolveInWorkdir(
  fs: WorkdirFs,
  roots: WorkdirRoots,
  path: string,
): Promise<ResolvedPath> {
  const pending = initialComponents(roots, path);
  const resolved: string[] = [];
  let hops = 0;
  let exists = true;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (resolved.length === 0) throw outside(path);
      resolved.pop();
      continue;
    }
    const candidate = join(roots.host, ...resolved, part);
    const stats = exists ? await fs.lstat(candidate) : undefined;
    if (stats?.type === 'symlink') {
      if (++hops > MAX_SYMLINK_HOPS) {
        throw sandboxError('invalid_input', `too many symlinks in ${JSON.stringify(path)}`);
      }
      const target = await fs.readlink(candidate);
      // A relative target resolves against the link's directory (what `resolved` holds now).
      if (target.startsWith('/')) resolved.length = 0;
      pending.unshift(...symlinkComponents(roots, target));
      continue;
    }
    if (!stats) exists = false;
    resolved.push(part);
  }
  return { hostPath: join(roots.host, ...resolved), relative: resolved.join('/'), exists };
}
