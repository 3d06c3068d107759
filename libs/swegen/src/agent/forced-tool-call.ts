import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AppError } from '@caravel/errors';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import type { z } from 'zod';

/** One structured answer asked of a model through a single forced tool. */
export interface ForcedToolCall<S extends z.ZodType> {
  /** The tool the answer must arrive under (scripted models call it by this name). */
  readonly tool: string;
  readonly description: string;
  /** The answer's shape, offered to the model as the tool's parameters and checked on return. */
  readonly schema: S;
  readonly system: string;
  readonly prompt: string;
  /** What the answer is for, named when the model cannot call tools ("evaluation"). */
  readonly purpose: string;
  /** Cancels the call (a per-PR deadline). */
  readonly signal?: AbortSignal;
}

/**
 * Asks `model` for one structured answer: the model must call `tool` (tool choice forced) with
 * arguments matching `schema`. This works with every tool-calling model, the providers' and the
 * scripted ones alike. No call, or arguments that do not match, is DEPENDENCY_UNAVAILABLE naming
 * what was wrong.
 */
export async function forcedToolCall<S extends z.ZodType>(
  model: BaseChatModel,
  request: ForcedToolCall<S>,
): Promise<z.infer<S>> {
  if (typeof model.bindTools !== 'function') {
    throw new AppError('CONFIG_INVALID', `the ${request.purpose} model cannot call tools`);
  }
  const definition = {
    type: 'function' as const,
    function: {
      name: request.tool,
      description: request.description,
      parameters: toJsonSchema(request.schema),
    },
  };
  const bound = model.bindTools([definition], { tool_choice: request.tool });
  const answer = await bound.invoke(
    [
      { role: 'system', content: request.system },
      { role: 'user', content: request.prompt },
    ],
    request.signal ? { signal: request.signal } : {},
  );
  const call = answer.tool_calls?.find((c) => c.name === request.tool);
  const parsed = request.schema.safeParse(call?.args);
  if (!parsed.success) {
    const why = call
      ? parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
      : 'no tool call';
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `the model gave no valid ${request.tool} answer (${why})`,
      { retryable: false },
    );
  }
  return parsed.data;
}

/** `text` cut to `max` characters, marked when cut (a model prompt's capped input). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[... truncated]`;
}
