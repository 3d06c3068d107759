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
import { HostFs, type FileOwner, type WorkdirFs } from './workdir-fs.js';
import { resolveInWorkdir, type ResolvedPath, type WorkdirRoots } from './workdir-paths.js';

export type { FileOwner } from './workdir-fs.js';

export interface WorkdirFilesOptions {
  readonly roots: WorkdirRoots;
  /** Where the primitives run (default: on the host, handing new files to `owner`). */
  readonly fs?: WorkdirFs;
  readonly owner?: FileOwner;
  /** `readFile` refuses larger files (default 10 MiB). */
  readonly maxReadBytes?: number;
}

const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;
const MAX_WALK_ENTRIES = 100_000;

/**
 * File operations on a workdir, every path confined to the workdir (see `resolveInWorkdir`),
 * over primitives that run where the provider says (`WorkdirFs`). Shared by the providers whose
 * workdir is a directory.
 */
export class WorkdirFiles {
  private readonly fs: WorkdirFs;

  constructor(private readonly options: WorkdirFilesOptions) {
    this.fs = options.fs ?? new HostFs(options.owner);
  }

  async readFile(path: string): Promise<string> {
    const target = await this.existingFile(path);
    const max = this.options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    const bytes = await this.fs.readFile(target.hostPath, max).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EFBIG') throw error;
      throw sandboxError('file_too_large', `${path} is over ${max} bytes`, { path });
    });
    return bytes.toString('utf8');
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    if (typeof content !== 'string' && !(content instanceof Uint8Array)) {
      throw sandboxError('invalid_input', 'file content must be a string or bytes');
    }
    const target = await resolveInWorkdir(this.fs, this.options.roots, path);
    if (target.relative === '')
      throw sandboxError('not_a_file', 'the workdir itself is not a file');
    if (target.exists && (await this.fs.stat(target.hostPath)).type !== 'file') {
      throw sandboxError('not_a_file', `${path} exists and is not a regular file`, { path });
    }
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    await this.fs.writeFile(target.hostPath, bytes);
  }

  async editFile(
    path: string,
    oldText: string,
    newText: string,
    options: EditFileOptions = {},
  ): Promise<{ replacements: number }> {
    const before = await this.readFile(path);
    const edited = replaceExact(before, oldText, newText, { ...options, path });
    const target = await this.existingFile(path);
    await this.fs.writeFile(target.hostPath, Buffer.from(edited.content, 'utf8'));
    return { replacements: edited.replacements };
  }

  async listFiles(path = '.', options: ListFilesOptions = {}): Promise<ListFilesResult> {
    const dir = await this.existingDirectory(path);
    const max = options.maxEntries ?? 1000;
    const entries: FileEntry[] = [];
    const walk = { recursive: options.recursive ?? false, maxVisited: MAX_WALK_ENTRIES };
    for await (const walked of walkTree(this.fs, dir.hostPath, dir.relative, walk)) {
      if (entries.length === max) return { entries, truncated: true };
      entries.push({ path: walked.relative, type: walked.entry.type, size: walked.entry.size });
    }
    return { entries, truncated: false };
  }

  async glob(pattern: string, options: { maxResults?: number } = {}): Promise<string[]> {
    const regex = globToRegExp(pattern);
    const max = options.maxResults ?? 1000;
    const found: string[] = [];
    const walk = { recursive: true, maxVisited: MAX_WALK_ENTRIES };
    for await (const walked of walkTree(this.fs, this.options.roots.host, '', walk)) {
      if (walked.entry.type === 'directory' || !regex.test(walked.relative)) continue;
      found.push(walked.relative);
      if (found.length === max) break;
    }
    return found.sort();
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepResult> {
    const start = await resolveInWorkdir(this.fs, this.options.roots, options.path ?? '.');
    if (!start.exists) throw notFound(options.path ?? '.');
    return grepTree(this.fs, start, pattern, { ...options, maxVisited: MAX_WALK_ENTRIES });
  }

  /** Stops whatever serves the primitives (the confined helper, when there is one). */
  close(): Promise<void> {
    return this.fs.close();
  }

  private async existingFile(path: string): Promise<ResolvedPath> {
    const target = await resolveInWorkdir(this.fs, this.options.roots, path);
    if (!target.exists) throw notFound(path);
    if ((await this.fs.stat(target.hostPath)).type !== 'file') {
      throw sandboxError('not_a_file', `${path} is not a regular file`, { path });
    }
    return target;
  }

  private async existingDirectory(path: string): Promise<ResolvedPath> {
    const target = await resolveInWorkdir(this.fs, this.options.roots, path);
    if (!target.exists) throw notFound(path);
    if ((await this.fs.stat(target.hostPath)).type !== 'directory') {
      throw sandboxError('invalid_input', `${path} is not a directory`, { path });
    }
    return target;
  }
}

function notFound(path: string): Error {
  return sandboxError('file_not_found', `${path} does not exist`, { path });
}
