import type {
  EditResult,
  ExecuteResponse,
  FileInfo,
  GlobResult,
  GrepResult,
  LsResult,
  ReadRawResult,
  ReadResult,
  SandboxBackendProtocolV2,
  WriteResult,
} from 'deepagents';

import { isModelCorrectable } from '../core/tool-definition.js';
import { DEFAULT_TOOL_OPTIONS } from '../core/tool-options.js';
import type { ToolSandbox } from '../ports/tool-sandbox.port.js';
import { splitLines } from '../tools/read-file.tool.js';

/** Options of {@link sandboxBackend}. */
export interface SandboxBackendOptions {
  /** The backend's id (deepagents requires one); the thread's sandbox id is a good choice. */
  id: string;
  /** Time limit of each `execute`. */
  execTimeoutMs?: number;
  /** Most paths / matches returned by glob and grep when deepagents sets no cap. */
  maxResults?: number;
  /** The clock stamped on `readRaw` results (the port does not report file times). */
  now?: () => Date;
}

/**
 * A deepagents backend over a {@link ToolSandbox}, so deepagents' built-in file tools and
 * `execute` run in our sandbox. deepagents addresses files by absolute paths: `/` is the
 * repository root here (`/src/a.ts` is `src/a.ts` in the sandbox's working directory).
 * Errors the model can correct come back as `{ error }`; others reject.
 */
export function sandboxBackend(
  sandbox: ToolSandbox,
  options: SandboxBackendOptions,
): SandboxBackendProtocolV2 {
  const execTimeoutMs = options.execTimeoutMs ?? DEFAULT_TOOL_OPTIONS.defaultExecTimeoutMs;
  const maxResults = options.maxResults ?? DEFAULT_TOOL_OPTIONS.maxListEntries;
  const now = options.now ?? (() => new Date());
  return {
    id: options.id,
    ls: (path) =>
      guard(async (): Promise<LsResult> => {
        const entries = await sandbox.listFiles(toSandbox(path));
        const files = entries.map((e): FileInfo => ({
          path: joinVirtual(path, e.name) + (e.type === 'directory' ? '/' : ''),
          is_dir: e.type === 'directory',
          ...(e.size === undefined ? {} : { size: e.size }),
        }));
        return { files };
      }),
    read: (filePath, offset = 0, limit = 500) =>
      guard(async () => readWindow(await sandbox.readFile(toSandbox(filePath)), offset, limit)),
    readRaw: (filePath) =>
      guard(async (): Promise<ReadRawResult> => {
        const content = await sandbox.readFile(toSandbox(filePath));
        const stamp = now().toISOString();
        return {
          data: { content, mimeType: 'text/plain', created_at: stamp, modified_at: stamp },
        };
      }),
    write: (filePath, content) =>
      guard(async (): Promise<WriteResult> => {
        await sandbox.writeFile(toSandbox(filePath), content);
        return { path: filePath, filesUpdate: null };
      }),
    edit: (filePath, oldString, newString, replaceAll = false) =>
      guard(async (): Promise<EditResult> => {
        const outcome = await sandbox.editFile({
          path: toSandbox(filePath),
          oldText: oldString,
          newText: newString,
          replaceAll,
        });
        switch (outcome.status) {
          case 'replaced':
            return { path: filePath, occurrences: outcome.occurrences, filesUpdate: null };
          case 'no-match':
            return { error: `String not found in file '${filePath}': no change was made.` };
          case 'ambiguous':
            return {
              error:
                `String appears ${outcome.occurrences} times in '${filePath}' (lines ` +
                `${outcome.lines.join(', ')}); give more context or set replace_all.`,
            };
        }
      }),
    grep: (pattern, path, glob, maxCount) =>
      guard(async (): Promise<GrepResult> => {
        const result = await sandbox.grep({
          pattern,
          path: toSandbox(path ?? '/'),
          ...(glob ? { include: glob } : {}),
          regex: false,
          ignoreCase: false,
          maxMatches: maxCount ?? maxResults,
        });
        const matches = result.matches.map((m) => ({ ...m, path: toVirtual(m.path) }));
        return { matches, truncated: result.truncated };
      }),
    glob: (pattern, path = '/') =>
      guard(async (): Promise<GlobResult> => {
        const base = toSandbox(path);
        const result = await sandbox.glob({ pattern, path: base, maxResults });
        const files = result.paths.map((p) => ({ path: toVirtual(p), is_dir: false }));
        return { files, truncated: result.truncated };
      }),
    execute: async (command): Promise<ExecuteResponse> => {
      const result = await sandbox.exec({ command, timeoutMs: execTimeoutMs });
      const note = result.timedOut ? `\n[timed out after ${execTimeoutMs / 1000} seconds]` : '';
      return {
        output: result.output + note,
        exitCode: result.exitCode,
        truncated: result.truncated,
      };
    },
  };
}

/** `/a/b` (deepagents) → `a/b` (relative to the sandbox's working directory); `/` → `.`. */
export function toSandbox(virtualPath: string): string {
  const stripped = virtualPath.replace(/^\/+/, '');
  return stripped === '' ? '.' : stripped;
}

/** `a/b` (sandbox, relative) → `/a/b` (deepagents). */
export function toVirtual(sandboxPath: string): string {
  const trimmed = sandboxPath.replace(/^\.\//, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function joinVirtual(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, '')}/${name}`;
}

function readWindow(text: string, offset: number, limit: number): ReadResult {
  const lines = splitLines(text);
  const selected = lines.slice(offset, offset + limit);
  if (selected.length === 0) return { content: '', mimeType: 'text/plain' };
  const endLine = offset + selected.length;
  return {
    content: selected.join('\n'),
    mimeType: 'text/plain',
    totalLines: lines.length,
    startLine: offset + 1,
    endLine,
    ...(endLine < lines.length ? { nextOffset: endLine } : {}),
  };
}

async function guard<T extends object>(work: () => Promise<T>): Promise<T | { error: string }> {
  try {
    return await work();
  } catch (error) {
    if (isModelCorrectable(error)) return { error: error.message };
    throw error;
  }
}
