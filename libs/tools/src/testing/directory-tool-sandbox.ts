import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

import { AppError } from '@caravel/errors';

import { globToRegExp, matchesGlob } from '../core/glob-pattern.js';
import { replaceExact } from '../ports/replace-exact.js';
import type {
  EditOutcome,
  EditRequest,
  ExecRequest,
  ExecResult,
  FileEntry,
  GlobRequest,
  GlobResult,
  GrepMatch,
  GrepRequest,
  GrepResult,
  ToolSandbox,
  WriteOutcome,
} from '../ports/tool-sandbox.port.js';

/** Output kept per command before the transport cap reports `truncated`. */
const MAX_EXEC_OUTPUT_CHARS = 1_000_000;

/**
 * A {@link ToolSandbox} over a directory of this machine: real files, real bash, real git. For
 * tests and local development only: it does not isolate anything, and each command runs in a
 * fresh shell (no persistent session). Paths may not leave the directory.
 */
export class DirectoryToolSandbox implements ToolSandbox {
  constructor(readonly root: string) {}

  exec(request: ExecRequest): Promise<ExecResult> {
    return runShell(request.command, request.cwd ? this.resolve(request.cwd) : this.root, {
      timeoutMs: request.timeoutMs,
    });
  }

  async readFile(path: string): Promise<string> {
    const full = this.resolve(path);
    const info = await statOrNull(full);
    if (info === null) throw new AppError('NOT_FOUND', `${path} does not exist.`);
    if (info.isDirectory()) throw new AppError('BAD_REQUEST', `${path} is a directory.`);
    return readFile(full, 'utf8');
  }

  async writeFile(path: string, content: string): Promise<WriteOutcome> {
    const full = this.resolve(path);
    const before = await statOrNull(full);
    if (before?.isDirectory()) throw new AppError('BAD_REQUEST', `${path} is a directory.`);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content, 'utf8');
    return { created: before === null };
  }

  async editFile(request: EditRequest): Promise<EditOutcome> {
    const content = await this.readFile(request.path);
    const result = replaceExact(content, request.oldText, request.newText, request.replaceAll);
    if (result.status !== 'replaced') return result;
    await writeFile(this.resolve(request.path), result.content, 'utf8');
    return { status: 'replaced', occurrences: result.occurrences, lines: result.lines };
  }

  async listFiles(path: string): Promise<FileEntry[]> {
    const full = this.resolve(path);
    const info = await statOrNull(full);
    if (info === null) throw new AppError('NOT_FOUND', `${path} does not exist.`);
    if (!info.isDirectory()) throw new AppError('BAD_REQUEST', `${path} is not a directory.`);
    const entries = await readdir(full, { withFileTypes: true });
    return Promise.all(
      entries.map(async (entry): Promise<FileEntry> => {
        if (entry.isDirectory()) return { name: entry.name, type: 'directory' };
        if (entry.isSymbolicLink()) return { name: entry.name, type: 'symlink' };
        if (!entry.isFile()) return { name: entry.name, type: 'other' };
        const size = (await stat(join(full, entry.name))).size;
        return { name: entry.name, type: 'file', size };
      }),
    );
  }

  async glob(request: GlobRequest): Promise<GlobResult> {
    const base = this.resolve(request.path ?? '.');
    const pattern = globToRegExp(request.pattern);
    const files = (await this.walk(base)).filter((file) => pattern.test(relative(base, file)));
    const paths = files.map((file) => this.present(file, request.path)).sort();
    return {
      paths: paths.slice(0, request.maxResults),
      truncated: paths.length > request.maxResults,
    };
  }

  async grep(request: GrepRequest): Promise<GrepResult> {
    const base = this.resolve(request.path ?? '.');
    const info = await statOrNull(base);
    if (info === null) throw new AppError('NOT_FOUND', `${request.path ?? '.'} does not exist.`);
    const files = (info.isDirectory() ? await this.walk(base) : [base]).sort();
    const matcher = lineMatcher(request);
    const matches: GrepMatch[] = [];
    for (const file of files) {
      if (request.include && !matchesGlob(relative(this.root, file), request.include)) continue;
      const buffer = await readFile(file);
      if (buffer.includes(0)) continue;
      const lines = buffer.toString('utf8').split('\n');
      for (const [index, text] of lines.entries()) {
        if (!matcher(text)) continue;
        if (matches.length === request.maxMatches) return { matches, truncated: true };
        matches.push({ path: this.present(file, request.path), line: index + 1, text });
      }
    }
    return { matches, truncated: false };
  }

  async diff(): Promise<string> {
    const result = await runShell('git add -A && git diff --cached --no-color HEAD', this.root, {
      timeoutMs: 60_000,
    });
    if (result.exitCode !== 0) {
      throw new AppError('PRECONDITION_FAILED', `git diff failed: ${result.output.trim()}`);
    }
    return result.output;
  }

  private resolve(path: string): string {
    const full = resolve(this.root, path);
    if (full !== this.root && !full.startsWith(this.root + sep)) {
      throw new AppError('FORBIDDEN', `${path} is outside the sandbox's directory.`);
    }
    return full;
  }

  /** A found path, written the way the request's path was (see the port's contract). */
  private present(full: string, requested: string | undefined): string {
    return requested !== undefined && isAbsolute(requested) ? full : relative(this.root, full);
  }

  private async walk(dir: string): Promise<string[]> {
    const found: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) found.push(...(await this.walk(full)));
      else if (entry.isFile()) found.push(full);
    }
    return found;
  }
}

function lineMatcher(request: GrepRequest): (line: string) => boolean {
  if (request.regex) {
    const regex = new RegExp(request.pattern, request.ignoreCase ? 'i' : '');
    return (line) => regex.test(line);
  }
  if (!request.ignoreCase) return (line) => line.includes(request.pattern);
  const needle = request.pattern.toLowerCase();
  return (line) => line.toLowerCase().includes(needle);
}

async function statOrNull(path: string): Promise<Awaited<ReturnType<typeof stat>> | null> {
  try {
    return await stat(path);
  } catch {
    return null;
  }
}

function runShell(
  command: string,
  cwd: string,
  limits: { timeoutMs: number },
): Promise<ExecResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, detached: true, stdio: 'pipe' });
    let output = '';
    let truncated = false;
    let timedOut = false;
    const collect = (chunk: Buffer): void => {
      if (output.length >= MAX_EXEC_OUTPUT_CHARS) truncated = true;
      else output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole process group, so children of the shell stop too.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, limits.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new AppError('DEPENDENCY_UNAVAILABLE', `bash failed to start: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ exitCode: timedOut ? null : code, output, timedOut, truncated });
    });
  });
}
