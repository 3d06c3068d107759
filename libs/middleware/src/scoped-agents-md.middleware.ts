import { ToolMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { describeError } from './error-inspection.js';
import type { AgentsFile, AgentsFileFinder, MiddlewareEventSink } from './ports.js';
import { appendToToolMessage } from './tool-messages.js';

/** Parameters of {@link scopedAgentsMdMiddleware}. */
export interface ScopedAgentsMdOptions {
  finder: AgentsFileFinder;
  events: MiddlewareEventSink;
  /** The tool whose results get the notes (default `read_file`). */
  readToolName?: string;
  /** Longest AGENTS.md content appended, per file (default 64,000 characters). */
  maxCharsPerFile?: number;
}

const DEFAULT_MAX_CHARS = 64_000;

function pathArgument(args: Record<string, unknown>): string | undefined {
  const value = args['file_path'] ?? args['path'];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function depth(path: string): number {
  return path.split('/').filter((part) => part.length > 0).length;
}

function render(file: AgentsFile, maxChars: number): string {
  const clipped = file.content.length > maxChars;
  const body = clipped ? file.content.slice(0, maxChars) : file.content;
  const note = clipped
    ? `\n[truncated: ${file.content.length - maxChars} more characters; read ${file.path} for the rest]`
    : '';
  return `<agents_md path="${file.path}">\n${body}${note}\n</agents_md>`;
}

function notes(files: AgentsFile[], maxChars: number): string {
  const header =
    '\n\nInstructions from AGENTS.md files that apply to this file (each is shown once per run; follow them when editing here):\n';
  return header + files.map((file) => render(file, maxChars)).join('\n');
}

/**
 * When the agent reads a file, appends the AGENTS.md files of that file's directory and its
 * parents (root first) that this run has not shown yet, so scoped rules are in view before edits.
 * Reading an AGENTS.md directly counts as having seen it.
 */
export function scopedAgentsMdMiddleware(options: ScopedAgentsMdOptions): AgentMiddleware {
  const { finder, events } = options;
  const readToolName = options.readToolName ?? 'read_file';
  const maxChars = options.maxCharsPerFile ?? DEFAULT_MAX_CHARS;
  // Per-run memory, checked and updated without an await in between, so parallel reads in one
  // step cannot both append the same file.
  let seen = new Set<string>();

  const unseen = async (path: string): Promise<AgentsFile[] | string> => {
    try {
      const found = await finder.findAgentsFiles(path);
      const fresh = found.filter((file) => !seen.has(file.path) && file.path !== path);
      for (const file of found) seen.add(file.path);
      return fresh.sort((a, b) => depth(a.path) - depth(b.path));
    } catch (error) {
      const reason = describeError(error);
      events.emit({ type: 'agents_md_unavailable', path, reason });
      return reason;
    }
  };

  return createMiddleware({
    name: 'scoped-agents-md',
    beforeAgent: () => {
      seen = new Set();
      return undefined;
    },
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const path = pathArgument(request.toolCall.args);
      if (request.toolCall.name !== readToolName || path === undefined) return result;
      if (!ToolMessage.isInstance(result) || result.status === 'error') return result;
      const files = await unseen(path);
      if (typeof files === 'string') {
        return appendToToolMessage(
          result,
          `\n\n[AGENTS.md files for ${path} could not be loaded: ${files}]`,
        );
      }
      return files.length === 0 ? result : appendToToolMessage(result, notes(files, maxChars));
    },
  });
}
