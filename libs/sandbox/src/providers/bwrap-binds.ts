import { posix } from 'node:path';
import { sandboxError } from '../sandbox.errors.js';
import type { BwrapBind } from './bwrap-arguments.js';
import type { SandboxPaths } from './sandbox-store.js';

/**
 * A bind every session of a bwrap provider gets beyond its workspace and home: the sandbox's
 * own workspace or home again at another path (writable: they are the sandbox's), or a host
 * folder (always read-only: the sandbox never writes to the host).
 */
export type SandboxBind =
  | { readonly path: string; readonly of: 'workspace' | 'home' }
  | { readonly path: string; readonly hostDir: string };

/** Paths a bind may not cover or sit under: the sandbox's own layout. */
const RESERVED = ['/usr', '/bin', '/sbin', '/lib', '/etc', '/dev', '/proc', '/tmp', '/run'];
const RESERVED_EXACT = ['/', '/home', '/workspace', '/home/agent'];

function reserved(path: string): boolean {
  if (RESERVED_EXACT.includes(path) || path.startsWith('/workspace/')) return true;
  if (path.startsWith('/home/agent/')) return true;
  return RESERVED.some((top) => path === top || path.startsWith(`${top}/`) || /^\/lib/.test(path));
}

/**
 * Checks binds once: absolute, normalised paths outside the sandbox's own layout (system
 * paths, /tmp, /workspace, /home/agent…), each at most once.
 * @throws AppError BAD_REQUEST (`invalid_input`) naming the path.
 */
export function assertBinds(binds: readonly SandboxBind[]): void {
  const seen = new Set<string>();
  for (const bind of binds) {
    const { path } = bind;
    if (
      !path.startsWith('/') ||
      posix.normalize(path) !== path ||
      (path !== '/' && path.endsWith('/'))
    ) {
      throw sandboxError('invalid_input', `bind path ${path} is not an absolute, normalised path`);
    }
    if (reserved(path)) {
      throw sandboxError('invalid_input', `bind path ${path} is part of the sandbox's own layout`);
    }
    if (seen.has(path)) throw sandboxError('invalid_input', `bind path ${path} is given twice`);
    seen.add(path);
  }
}

/** The binds of one sandbox, its workspace and home resolved. */
export function resolveBinds(binds: readonly SandboxBind[], paths: SandboxPaths): BwrapBind[] {
  return binds.map((bind) =>
    'of' in bind
      ? { source: paths[bind.of], path: bind.path, writable: true }
      : { source: bind.hostDir, path: bind.path, writable: false },
  );
}
