import { AppError, isAppError } from '@caravel/errors';
import type { z } from 'zod';

/**
 * What a tool does to the world, which decides where it may be offered: the chat agent gets only
 * `read`, `reply` and `control` tools; `finish` ends the run (the submission protocol).
 */
export type ToolEffect = 'read' | 'write' | 'reply' | 'control' | 'finish';

/** The outcome of one tool call: a typed output, or an error the model can act on. */
export type ToolResult<O> =
  | { ok: true; output: O; observation: string }
  | { ok: false; error: AppError; observation: string };

/** The call a tool runs for, as the agent made it. */
export interface ToolCallContext {
  /**
   * Caravel's id of the call (its run, turn and place in the turn, never the provider's): the
   * same when a resumed run makes the call again, so side effects key their idempotency on it.
   */
  readonly callId?: string;
}

/**
 * A curated tool, independent of any agent framework: validated input in, typed output and the
 * observation text the model reads out. {@link toLangChainTool} adapts it for LangChain agents.
 */
export interface CaravelTool<O = unknown> {
  readonly name: string;
  readonly description: string;
  readonly effect: ToolEffect;
  /** The input schema (the model sees its JSON Schema). */
  readonly input: z.ZodType;
  /**
   * Validates `raw` and runs the tool. Invalid input and errors the model can correct (coded,
   * not retryable) resolve as `ok: false` with an explanatory observation; anything else (a
   * sandbox that is down, a bug) rejects, so the middleware stack decides what happens to the run.
   */
  invoke(raw: unknown, call?: ToolCallContext): Promise<ToolResult<O>>;
}

/** The parts a tool is written from. */
export interface ToolSpec<S extends z.ZodType, O> {
  name: string;
  description: string;
  effect: ToolEffect;
  input: S;
  run(input: z.output<S>, call: ToolCallContext): Promise<O>;
  /** Renders the output as the text the model reads. */
  observe(output: O): string;
}

/** Builds a {@link CaravelTool} from its spec. */
export function defineTool<S extends z.ZodType, O>(spec: ToolSpec<S, O>): CaravelTool<O> {
  return {
    name: spec.name,
    description: spec.description,
    effect: spec.effect,
    input: spec.input,
    async invoke(raw: unknown, call: ToolCallContext = {}): Promise<ToolResult<O>> {
      const parsed = spec.input.safeParse(raw ?? {});
      if (!parsed.success) return failure(invalidInput(spec.name, parsed.error));
      try {
        const output = await spec.run(parsed.data, call);
        return { ok: true, output, observation: spec.observe(output) };
      } catch (error) {
        if (isModelCorrectable(error)) return failure(error);
        throw error;
      }
    },
  };
}

/** True for errors worth showing to the model rather than failing the run. */
export function isModelCorrectable(error: unknown): error is AppError {
  return isAppError(error) && !error.retryable && error.code !== 'INTERNAL';
}

/** The observation for a failed call: the error's code and message. */
export function errorObservation(error: AppError): string {
  return `Error (${error.code}): ${error.message}`;
}

function failure(error: AppError): { ok: false; error: AppError; observation: string } {
  return { ok: false, error, observation: errorObservation(error) };
}

function invalidInput(tool: string, error: z.ZodError): AppError {
  const problems = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : '(input)';
    return `${where}: ${issue.message}`;
  });
  return new AppError(
    'BAD_REQUEST',
    `Invalid arguments for ${tool}: ${problems.join('; ')}. Fix the arguments and call it again.`,
    { details: { tool, issues: problems } },
  );
}
