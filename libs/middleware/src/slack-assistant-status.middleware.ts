import { createMiddleware, type AgentMiddleware } from 'langchain';
import { describeError } from './error-inspection.js';
import type { AssistantStatusPort, MiddlewareEventSink } from './ports.js';

/** Parameters of {@link slackAssistantStatusMiddleware}. */
export interface SlackAssistantStatusOptions {
  status: AssistantStatusPort;
  events: MiddlewareEventSink;
  /** The text shown while the agent works (default `is working…`). */
  workingText?: string;
}

/**
 * Keeps the source channel's assistant status ("is working…") current: set before every model
 * call (a reply in the thread clears it on Slack's side, so it is set again), and cleared when
 * the run ends, whether it finishes, stops at a limit or fails. A status that cannot be set never
 * fails the run; the failure is reported as an event.
 */
export function slackAssistantStatusMiddleware(
  options: SlackAssistantStatusOptions,
): AgentMiddleware {
  const working = options.workingText ?? 'is working…';
  let shown = false;
  const bestEffort = async (action: () => Promise<void>): Promise<void> => {
    try {
      await action();
    } catch (error) {
      options.events.emit({ type: 'assistant_status_failed', reason: describeError(error) });
    }
  };
  const clear = async (): Promise<void> => {
    if (!shown) return;
    shown = false;
    await bestEffort(() => options.status.clearStatus());
  };
  const failing = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      // An interrupt ends this run too: the next run sets the status again.
      await clear();
      throw error;
    }
  };
  return createMiddleware({
    name: 'slack-assistant-status',
    wrapModelCall: async (request, handler) => {
      shown = true;
      await bestEffort(() => options.status.setStatus(working));
      return failing(async () => handler(request));
    },
    wrapToolCall: (request, handler) => failing(async () => handler(request)),
    afterAgent: async () => {
      await clear();
      return undefined;
    },
  });
}
