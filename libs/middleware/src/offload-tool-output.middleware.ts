import { ToolMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import type { MiddlewareEventSink } from './ports.js';

/** Where offloaded outputs are written (the runner binds it to the run's sandbox). */
export interface ToolOutputStore {
  /** Writes `content` at `path` (relative to the repository root), creating its directories. */
  save(path: string, content: string): Promise<void>;
}

/** Parameters of {@link offloadToolOutputMiddleware}. */
export interface OffloadToolOutputOptions {
  /** Outputs longer than this many characters go to a file (0: never). */
  maxChars: number;
  store: ToolOutputStore;
  /** The run's folder: each output is `<directory>/<call id>.txt`. */
  directory: string;
  /** Characters of the output's start and of its end shown in its place (default 2,000 each). */
  previewChars?: number;
  /**
   * Tools whose outputs stay as they are (default `read_file`, whose output is a file already,
   * and `submit`, whose output is the submission and ends the run).
   */
  keepTools?: readonly string[];
  events: MiddlewareEventSink;
}

/** Where a run's offloaded outputs go, by default: inside `.git`, so never in a diff or commit. */
export const OFFLOAD_ROOT = '.git/caravel-outputs';

const DEFAULT_PREVIEW_CHARS = 2_000;

function fileNameOf(callId: string | undefined): string {
  const safe = (callId ?? '').replace(/[^A-Za-z0-9_.-]/g, '_');
  return `${safe || `output-${Date.now()}`}.txt`;
}

function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length;
}

/** What the model reads instead of an output too long for its conversation. */
export function offloadNotice(
  tool: string,
  output: string,
  path: string,
  previewChars = DEFAULT_PREVIEW_CHARS,
): string {
  const size = `${output.length.toLocaleString('en-US')} characters, ${countLines(output).toLocaleString('en-US')} lines`;
  return [
    `[The output of ${tool} was too long for the conversation (${size}). It is saved in full ` +
      `in ${path}: read parts of it with read_file (offset, limit) or search it with execute ` +
      `(grep -n PATTERN ${path}).]`,
    `--- first ${previewChars.toLocaleString('en-US')} characters ---`,
    output.slice(0, previewChars),
    `--- last ${previewChars.toLocaleString('en-US')} characters ---`,
    output.slice(-previewChars),
  ].join('\n');
}

/** The artifact with every text as long as the output replaced by the notice (checkpoints stay small). */
function lighterArtifact(artifact: unknown, maxChars: number, notice: string): unknown {
  if (typeof artifact === 'string') return artifact.length > maxChars ? notice : artifact;
  if (typeof artifact !== 'object' || artifact === null || Array.isArray(artifact)) return artifact;
  return Object.fromEntries(
    Object.entries(artifact as Record<string, unknown>).map(([key, value]) => [
      key,
      typeof value === 'string' && value.length > maxChars ? notice : value,
    ]),
  );
}

/**
 * Offloads a tool output too long for the conversation: the whole output is written to a file in
 * the sandbox under the run's folder, and the model reads where it is, its size and its first and
 * last characters instead, so one huge output (a build log, a diff, a web page) neither fills the
 * context window nor is lost by clipping. When the file cannot be written the output is clipped
 * to its first and last `maxChars / 2` characters instead (a `tool_output_offload_failed` event
 * says why).
 */
export function offloadToolOutputMiddleware(options: OffloadToolOutputOptions): AgentMiddleware {
  const keep = new Set(options.keepTools ?? ['read_file', 'submit']);
  const previewChars = options.previewChars ?? DEFAULT_PREVIEW_CHARS;
  return createMiddleware({
    name: 'offload-tool-output',
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const tool = request.toolCall.name;
      if (options.maxChars <= 0 || keep.has(tool) || !ToolMessage.isInstance(result)) return result;
      const output = typeof result.content === 'string' ? result.content : '';
      if (output.length <= options.maxChars) return result;
      const path = `${options.directory}/${fileNameOf(request.toolCall.id)}`;
      try {
        await options.store.save(path, output);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        options.events.emit({ type: 'tool_output_offload_failed', tool, reason });
        return replaced(result, clipped(output, options.maxChars, reason), options.maxChars);
      }
      options.events.emit({ type: 'tool_output_offloaded', tool, path, chars: output.length });
      return replaced(result, offloadNotice(tool, output, path, previewChars), options.maxChars);
    },
  });
}

/** The result with `content` in place of its output (and of the artifact's long texts). */
function replaced(result: ToolMessage, content: string, maxChars: number): ToolMessage {
  return new ToolMessage({
    ...(result.id ? { id: result.id } : {}),
    tool_call_id: result.tool_call_id,
    ...(result.name ? { name: result.name } : {}),
    status: result.status ?? 'success',
    content,
    artifact: lighterArtifact(result.artifact, maxChars, content),
  });
}

/** An output that could not be saved, clipped to its first and last characters, as the model reads it. */
function clipped(output: string, maxChars: number, reason: string): string {
  const half = Math.floor(maxChars / 2);
  const elided = output.length - 2 * half;
  return (
    `${output.slice(0, half)}\n<response clipped: ${elided} characters elided; the whole ` +
    `output could not be saved to a file (${reason})>\n${output.slice(-half)}`
  );
}
