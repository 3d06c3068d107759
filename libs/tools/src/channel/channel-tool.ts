import { AppError, isAppError } from '@caravel/errors';
import type { z } from 'zod';
import { defineTool, type CaravelTool, type ToolSpec } from '../core/tool-definition.js';
import type { ChannelMessage } from './channel.ports.js';
import { wrapUntrusted } from './untrusted-content.js';

/**
 * Builds a channel tool: like {@link defineTool}, but every failure of the channel (bad
 * credentials, a missing page, a rate limit, an unreachable API) comes back to the model as an
 * observation instead of failing the run. A talkative integration must not end a coding run.
 */
export function defineChannelTool<S extends z.ZodType, O>(spec: ToolSpec<S, O>): CaravelTool<O> {
  return defineTool({
    ...spec,
    async run(input, call) {
      try {
        return await spec.run(input, call);
      } catch (error) {
        throw asObservableError(spec.name, error);
      }
    },
  });
}

/** Turns any channel failure into a coded, non-retryable error the model reads. */
export function asObservableError(tool: string, error: unknown): AppError {
  if (!isAppError(error)) {
    const reason = error instanceof Error ? error.message : String(error);
    return new AppError('DEPENDENCY_UNAVAILABLE', `${tool} failed: ${reason}`, {
      retryable: false,
      cause: error,
    });
  }
  if (!error.retryable && error.code !== 'INTERNAL') return error;
  const later =
    error.code === 'RATE_LIMITED' ? ' The service is rate limiting us: try again later.' : '';
  return new AppError(
    error.code === 'INTERNAL' ? 'DEPENDENCY_UNAVAILABLE' : error.code,
    `${error.message}${later}`,
    { retryable: false, cause: error, details: error.details },
  );
}

/**
 * Renders messages read from a channel for the model, each wrapped as untrusted content with
 * its author, so instructions in them are read as data.
 */
export function renderChannelMessages(source: string, messages: readonly ChannelMessage[]): string {
  if (messages.length === 0) return `No messages in this ${source}.`;
  return messages
    .map((message) =>
      wrapUntrusted(message.text, {
        source,
        author: message.author,
        id: message.id,
        ...(message.at ? { at: message.at } : {}),
        ...(message.bot ? { bot: 'true' } : {}),
      }),
    )
    .join('\n');
}
