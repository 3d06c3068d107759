import { z } from 'zod';
import type { CannedResponse } from '../canned/canned-response.js';
import {
  parseStructuredText,
  readTextFile,
  validateStructured,
  type StructuredFile,
} from '../canned/structured-file.js';

const toolCallSchema = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  id: z.string().min(1).optional(),
});

const errorSchema = z
  .strictObject({
    status: z.number().int().min(100).max(599).optional(),
    timeout: z.boolean().optional(),
    message: z.string().default('simulated provider error'),
    retry_after: z.number().min(0).optional(),
  })
  .refine((error) => error.status !== undefined || error.timeout === true, {
    message: 'an error needs a status (e.g. 429, 500) or timeout: true',
  });

const responseSchema = z
  .strictObject({
    content: z.string().optional(),
    thinking: z.string().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    usage: z
      .strictObject({
        input_tokens: z.number().int().min(0),
        output_tokens: z.number().int().min(0),
      })
      .optional(),
    cost: z.number().min(0).optional(),
    error: errorSchema.optional(),
  })
  .refine(
    (r) =>
      r.error === undefined
        ? r.content !== undefined || r.thinking !== undefined || (r.tool_calls?.length ?? 0) > 0
        : r.content === undefined && r.tool_calls === undefined,
    { message: 'a response has content, thinking or tool_calls, or else only an error' },
  );

const responseListSchema = z.array(responseSchema).min(1, 'a script needs at least one response');

/** The script file: `{ responses: [...] }` or the list itself. */
export const modelScriptSchema = z.strictObject({ responses: responseListSchema });

type ScriptResponse = z.infer<typeof responseSchema>;

function toCanned(response: ScriptResponse, origin: string): CannedResponse {
  const { usage, error } = response;
  return {
    origin,
    content: response.content,
    thinking: response.thinking,
    toolCalls: response.tool_calls,
    usage: usage && { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens },
    costUsd: response.cost,
    error: error && {
      status: error.status,
      timeout: error.timeout,
      message: error.message,
      retryAfterSeconds: error.retry_after,
    },
  };
}

/** Validates parsed script text into canned responses, each knowing its `file:line:col`. */
export function scriptFromStructured(parsed: StructuredFile): CannedResponse[] {
  // Pick the schema by shape so a bad entry is reported at its own position, not as a union miss.
  const isList = Array.isArray(parsed.value);
  const list = isList
    ? validateStructured(parsed, responseListSchema, 'model script')
    : validateStructured(parsed, modelScriptSchema, 'model script').responses;
  const prefix = isList ? [] : ['responses'];
  return list.map((response, i) => toCanned(response, parsed.positionOf([...prefix, i])));
}

/**
 * Parses a model script (YAML or JSON). Syntax and shape errors are BAD_REQUESTs that name the
 * file, line and column.
 */
export function parseModelScript(file: string, text: string): CannedResponse[] {
  return scriptFromStructured(parseStructuredText(file, text));
}

/** Reads and parses a model script file. */
export function loadModelScript(file: string): CannedResponse[] {
  return parseModelScript(file, readTextFile(file));
}
