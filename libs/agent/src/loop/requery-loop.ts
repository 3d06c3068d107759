import { AppError } from '@caravel/errors';
import {
  requeryMessage,
  validateAction,
  type ActionValidatorConfig,
  type OutputFailure,
  type ParsedOutput,
} from './action-validator.js';
import type { LoopTemplates } from './loop-templates.js';

/** SWE-agent's `max_requeries`: the number of counted failures that ends a step. */
export const DEFAULT_MAX_REQUERIES = 3;

/** One answer that could not be executed. Recorded in the trajectory, never in the history. */
export interface FailedAttempt<M, R> {
  /** The exact messages this attempt was queried with. */
  query: readonly M[];
  reply: R;
  failure: OutputFailure;
  /** What the model was told next (`null`: resampled with the same history). */
  requeryMessage: string | null;
}

/** How one step's querying ended. */
export type StepQueryOutcome<M, R> =
  | {
      kind: 'accepted';
      query: readonly M[];
      reply: R;
      thought: string;
      action: string;
      failedAttempts: FailedAttempt<M, R>[];
    }
  | { kind: 'exit_format'; failedAttempts: FailedAttempt<M, R>[] };

/** What {@link queryWithRequery} needs from the runner. `M` is its message type, `R` a reply. */
export interface RequeryLoopDeps<M, R> {
  /** The paid model call (already behind the limit guard). */
  query(messages: readonly M[]): Promise<R>;
  /** The runner's parser (tool call or fenced block → thought and action). */
  parse(reply: R): ParsedOutput;
  /** The failed answer and the error text as messages, appended to the base history. */
  failedTurn(reply: R, errorMessage: string): M[];
  validator: ActionValidatorConfig;
  templates?: LoopTemplates;
  /** Counted failures that end the step with `exit_format` (default 3). */
  maxRequeries?: number;
}

/**
 * Queries the model for one step, requerying on unusable answers (format, blocklist,
 * multi-line, syntax, content policy). Each requery sends the base history plus only the
 * latest failed answer and its error message; the base history is never modified, so a
 * model that recovers leaves no trace of its mistakes in later prompts. With the default
 * of 3 the model gets at most 3 answers; the 3rd failure ends the step with `exit_format`.
 */
export async function queryWithRequery<M, R>(
  history: readonly M[],
  deps: RequeryLoopDeps<M, R>,
): Promise<StepQueryOutcome<M, R>> {
  const max = deps.maxRequeries ?? DEFAULT_MAX_REQUERIES;
  if (!Number.isInteger(max) || max < 1) {
    throw new AppError('CONFIG_INVALID', `maxRequeries must be a positive integer, got ${max}`);
  }
  const failedAttempts: FailedAttempt<M, R>[] = [];
  let messages: readonly M[] = history;
  while (failedAttempts.length < max) {
    const reply = await deps.query(messages);
    const validation = await validateAction(deps.parse(reply), deps.validator);
    if (validation.ok) {
      const { thought, action } = validation;
      return { kind: 'accepted', query: messages, reply, thought, action, failedAttempts };
    }
    const message = requeryMessage(validation.failure, deps.templates);
    failedAttempts.push({
      query: messages,
      reply,
      failure: validation.failure,
      requeryMessage: message,
    });
    messages = message === null ? history : [...history, ...deps.failedTurn(reply, message)];
  }
  return { kind: 'exit_format', failedAttempts };
}
