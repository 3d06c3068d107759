import { isLoopExit } from '@caravel/agent';
import type { AgentMiddleware } from 'langchain';
import { findAppError } from '../error-inspection.js';
import { runLimitsMiddleware } from '../run-limits.middleware.js';
import { FREE_PRICING, ManualClock, type RecordingEvents } from './recording-ports.js';

/** The exit reason a run ended with (`exit_context`, …), or undefined when it completed. */
export async function exitOf(run: Promise<unknown>): Promise<string | undefined> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  const exit = findAppError(error);
  return isLoopExit(exit) ? exit.reason : undefined;
}

/** Run limits that check only the context window (`window` tokens), free and timeless. */
export function contextLimit(window: number, events: RecordingEvents): AgentMiddleware {
  return runLimitsMiddleware({
    limits: { maxCostUsd: 0, maxWallTimeMs: 0, maxInputTokens: window },
    execution: {},
    stuckThreshold: 0,
    pricing: FREE_PRICING,
    promptMessageId: 'prompt-1',
    clock: new ManualClock(),
    events,
  });
}
