import { createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { describeError } from './error-inspection.js';
import { answersThisRun } from './run-turns.js';
import { requireNonNegativeInteger, requirePositiveInteger } from './validate-options.js';
import type { MiddlewareEventSink, StepLimitNotifier } from './ports.js';

/** Parameters of {@link stepLimitNoticeMiddleware}. */
export interface StepLimitNoticeOptions {
  threadId: string;
  /** The run's model-call limit (the same number the model-call-limit middleware enforces). */
  limit: number;
  /** Notify when this many model calls remain (0: when the limit is reached). */
  noticeAt: number;
  /**
   * The run's prompt: its calls are the answers after it. Without one every answer counts (an
   * agent that runs one prompt, as the reviewer's).
   */
  promptMessageId?: string;
  notifier: StepLimitNotifier;
  events: MiddlewareEventSink;
}

const stateSchema = z.object({ stepNoticeSent: z.boolean().default(false) });

/**
 * Tells the source channel, once per run, that the run is close to its step limit, so the user
 * hears about it instead of meeting silence. A failing notifier is reported, never fatal.
 */
export function stepLimitNoticeMiddleware(options: StepLimitNoticeOptions): AgentMiddleware {
  requirePositiveInteger('step limit', options.limit);
  requireNonNegativeInteger('step limit notice point', options.noticeAt);
  const { threadId, limit, noticeAt, notifier, events, promptMessageId } = options;
  return createMiddleware({
    name: 'step-limit-notice',
    stateSchema,
    beforeAgent: () => ({ stepNoticeSent: false }),
    afterModel: async (state) => {
      if (state.stepNoticeSent) return undefined;
      // The answer this hook follows is in the conversation already.
      const used = answersThisRun(state.messages, promptMessageId);
      const remaining = Math.max(0, limit - used);
      if (remaining > noticeAt) return undefined;
      try {
        await notifier.notifyStepLimit({ threadId, used, limit, remaining });
      } catch (error) {
        events.emit({ type: 'step_limit_notice_failed', reason: describeError(error) });
      }
      return { stepNoticeSent: true };
    },
  });
}
