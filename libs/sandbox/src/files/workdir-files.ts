import { chown, lstat, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, relative as relativePath, sep } from 'node:path';
import { sandboxError } from '../sandbox.errors.js';
import type {
  EditFileOptions,
  FileEntry,
  GrepOptions,
  GrepResult,
  ListFilesOptions,
  ListFilesResult,
} from '../sandbox.types.js';
import { globToRegExp } from './glob-pattern.js';
import { grepTree } from './grep-tree.js';
import { replaceExact } from './text-edit.js';
import { walkTree } from './tree-walker.js';
import { resolveInWorkdir, type ResolvedPath, type WorkdirRoots } from './workdir-paths.js';

/** Who should own files the host creates in the workdir (the sandbox user, seen from the host). */
export interface FileOwner {
  readonly uid: number;
  readonly gid: number;
}

export interface WorkdirFilesOptions {
  readonly roots: WorkdirRoots;
  readonly owner?: FileOwner;
  /** `readFile` refuses larger files (default 10 MiB). */
  readonly maxReadBytes?: number;
}

const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;
const MAX_WALK_ENTRIES = 100_000;

/**
 * File operations on a workdir from the host side, every path confined to the workdir (see
 * `resolveInWorkdir`). Shared by the providers whose workdir is a host directory.
 */
export class WorkdirFiles {
  constructor(private readonly options: WorkdirFilesOptions) {}

  async readFile(path: string): Promise<string> {
    const target = await this.existingFile(path);
    const info = await stat(target.hostPath);
    const max = this.options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    if (info.size > max) {
      throw sandboxError('file_too_large', `${path} is ${info.size} bytes, over ${max}`, { path });
    }
    return readFile(target.hostPath, 'utf8');
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw sandboxError('invalid_input', 'file content must be a string or bytes');
    }
    const target = await resolveInWorkdir(this.options.roots, path);
    if (target.relative === '')
      throw sandboxError('not_a_file', 'the workdir itself is not a file');
    if (target.exists && !(await stat(target.hostPath)).isFile()) {
      throw sandboxError('not_a_file', `${path} exists and is not a regular file`, { path });
    }
    await this.makeParents(target.hostPath);
    await writeFile(target.hostPath, content);
    if (!target.exists) await this.own(target.hostPath);
  }

  async editFile(
    path: string,
    oldText: string,
    newText: string,
    options: EditFileOptions = {},
  ): Promise<{ replacements: number }> {
    const target = await this.existingFile(path);
    const before = await readFile(target.hostPath, 'utf8');
    const edited = replaceExact(before, oldText, newText, { ...options, path });
    await writeFile(target.hostPath, edited.content);
    return { replacements: edited.replacements };
  }

  async listFiles(path = '.', options: ListFilesOptions = {}): Promise<ListFilesResult> {
    const dir = await this.existingDirectory(path);
    const max = options.maxEntries ?? 1000;
    const entries: FileEntry[] = [];
    const walk = { recursive: options.recursive ?? false, maxVisited: MAX_WALK_ENTRIES };
    for await (const entry of walkTree(dir.hostPath, dir.relative, walk)) {
      if (entries.length === max) return { entries, truncated: true };
      const info = await lstat(entry.hostPath);
      entries.push({ path: entry.relative, type: entryType(entry.dirent), size: info.size });
    }
    return { entries, truncated: false };
  }

  async glob(pattern: string, options: { maxResults?: number } = {}): Promise<string[]> {
    const regex = globToRegExp(pattern);
    const max = options.maxResults ?? 1000;
    const found: string[] = [];
    const walk = { recursive: true, maxVisited: MAX_WALK_ENTRIES };
    for await (const entry of walkTree(this.options.roots.host, '', walk)) {
      if (entry.dirent.isDirectory() || !regex.test(entry.relative)) continue;
      found.push(entry.relative);
      if (found.length === max) break;
    }
    return found.sort();
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepResult> {
    const start = await resolveInWorkdir(this.options.roots, options.path ?? '.');
    if (!start.exists) throw notFound(options.path ?? '.');
    return grepTree(start, pattern, { ...options, maxVisited: MAX_WALK_ENTRIES });
  }

  private async existingFile(path: string): Promise<ResolvedPath> {
    const target = await resolveInWorkdir(this.options.roots, path);
    if (!target.exists) throw notFound(path);
    if (!(await stat(target.hostPath)).isFile()) {
      throw sandboxError('not_a_file', `${path} is not a regular file`, { path });
    }
    return target;
  }

  private async existingDirectory(path: string): Promise<ResolvedPath> {
    const target = await resolveInWorkdir(this.options.roots, path);
    if (!target.exists) throw notFound(path);
    if (!(await stat(target.hostPath)).isDirectory()) {
      throw sandboxError('invalid_input', `${path} is not a directory`, { path });
    }
    return target;
  }

  private async makeParents(hostPath: string): Promise<void> {
    const first = await mkdir(dirname(hostPath), { recursive: true });
    if (first === undefined || !this.options.owner) return;
    // Hand every directory mkdir created to the sandbox user, from the first one down.
    const created = relativePath(first, dirname(hostPath));
    let current = first;
    await this.own(current);
    for (const part of created ? created.split(sep) : []) {
      current = `${current}${sep}${part}`;
      await this.own(current);
    }
  }

  private async own(hostPath: string): Promise<void> {
    const owner = this.options.owner;
    if (owner) await chown(hostPath, owner.uid, owner.gid);
  }
}

function notFound(path: string): Error {
  return sandboxError('file_not_found', `${path} does not exist`, { path });
}

function entryType(dirent: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}): FileEntry['type'] {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isDirectory()) return 'directory';
  return dirent.isFile() ? 'file' : 'other';
}
