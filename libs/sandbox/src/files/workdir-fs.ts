import type { Dirent, Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, stat } from 'node:fs/promises';
import { dirname, join, relative as relativePath, sep } from 'node:path';

/** What kind of entry a path names (links not followed unless said). */
export type FsEntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface FsInfo {
  readonly type: FsEntryType;
  readonly size: number;
}

export interface FsEntry extends FsInfo {
  readonly name: string;
}

/** Who should own what the host creates in a workdir (the sandbox user, seen from the host). */
export interface FileOwner {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The filesystem primitives the workdir operations stand on. Where the sandbox is isolated they
 * are served from inside its namespace (`ConfinedFs`), so no path, however an agent swaps its
 * components for symlinks meanwhile, can lead them to a host file; `HostFs` serves them directly
 * (a provider without isolation). Failures carry node's `code` (`ENOENT`, `EISDIR`, …).
 */
export interface WorkdirFs {
  /** Undefined when nothing is there (`ENOENT`, or a component is not a directory). */
  lstat(path: string): Promise<FsInfo | undefined>;
  /** Follows symlinks. */
  stat(path: string): Promise<FsInfo>;
  readlink(path: string): Promise<string>;
  /** The entries of a directory, each with its own (`lstat`) type and size. */
  readdir(path: string): Promise<FsEntry[]>;
  /** A regular file's bytes; fails with `EFBIG` past `maxBytes`. */
  readFile(path: string, maxBytes: number): Promise<Buffer>;
  /** Creates (with its missing parents) or overwrites a file. */
  writeFile(path: string, content: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** A node error with its code, as the primitives raise them. */
export function fsError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

export function entryType(entry: Dirent | Stats): FsEntryType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  return entry.isFile() ? 'file' : 'other';
}

/** What a read asks for first when a file's size is smaller (it may be 0 and still hold bytes). */
const FIRST_READ_BYTES = 8191;

/**
 * Reads an open file to its end, at most `maxBytes` (EFBIG beyond), whatever its size said at
 * first: a file that grows while it is read, or one whose size says 0 (`/proc`), is read whole
 * or refused, never cut short. The sandbox's file helper (`confined-fs-server.ts`) runs a plain
 * copy of this inside the sandbox, where it cannot import it; `read-capped.spec.ts` holds both
 * to the same cases.
 */
export async function readCapped(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw fsError('EISDIR', `${path} is not a regular file`);
    if (info.size > maxBytes) throw fsError('EFBIG', `${path} is ${info.size} bytes`);
    let buffer = Buffer.alloc(Math.min(Math.max(info.size, FIRST_READ_BYTES), maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) break;
        const grown = Buffer.alloc(Math.min(length * 2, maxBytes + 1));
        buffer.copy(grown);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw fsError('EFBIG', `${path} grew past ${maxBytes} bytes`);
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/**
 * The primitives straight on the host's filesystem: for providers that isolate nothing
 * (`local`) or whose files the host must reach directly. New files and directories are handed
 * to `owner` through their descriptors or without following links.
 */
export class HostFs implements WorkdirFs {
  constructor(private readonly owner?: FileOwner) {}

  async lstat(path: string): Promise<FsInfo | undefined> {
    try {
      const info = await lstat(path);
      return { type: entryType(info), size: info.size };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  async stat(path: string): Promise<FsInfo> {
    const info = await stat(path);
    return { type: entryType(info), size: info.size };
  }

  readlink(path: string): Promise<string> {
    return readlink(path);
  }

  async readdir(path: string): Promise<FsEntry[]> {
    const entries: FsEntry[] = [];
    for (const dirent of await readdir(path, { withFileTypes: true })) {
      const size = (await this.lstat(join(path, dirent.name)))?.size ?? 0;
      entries.push({ name: dirent.name, type: entryType(dirent), size });
    }
    return entries;
  }

  readFile(path: string, maxBytes: number): Promise<Buffer> {
    return readCapped(path, maxBytes);
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    await this.makeParents(path);
    const existed = (await this.lstat(path)) !== undefined;
    const handle = await open(path, 'w');
    try {
      await handle.writeFile(content);
      if (!existed && this.owner) await handle.chown(this.owner.uid, this.owner.gid);
    } finally {
      await handle.close();
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private async makeParents(path: string): Promise<void> {
    const first = await mkdir(dirname(path), { recursive: true });
    if (first === undefined || !this.owner) return;
    // Hand every directory mkdir created to the sandbox user, from the first one down.
    const created = relativePath(first, dirname(path));
    let current = first;
    await this.own(current);
    for (const part of created ? created.split(sep) : []) {
      current = `${current}${sep}${part}`;
      await this.own(current);
    }
  }

  private async own(path: string): Promise<void> {
    const handle = await open(path, 'r');
    try {
      if (this.owner) await handle.chown(this.owner.uid, this.owner.gid);
    } finally {
      await handle.close();
    }
  }
}
