import type { MiddlewareStackOptions } from '../build-middleware-stack.js';
import type { QueuedMessage } from '../ports.js';
import {
  ManualClock,
  MapAgentsFinder,
  RecordingEvents,
  RecordingNotifier,
  ScriptedQueue,
  relaxedLoopOptions,
} from './recording-ports.js';

/**
 * Options for a whole test stack on recording ports (a 20-call limit with its notice at 2, the
 * breaker at 2, the loop discipline relaxed), with `queued` as the queue's batches, one a drain.
 */
export function testStackOptions(
  overrides: Partial<MiddlewareStackOptions> = {},
  queued: QueuedMessage[][] = [],
) {
  const events = new RecordingEvents();
  const notifier = new RecordingNotifier();
  const clock = new ManualClock();
  const options: MiddlewareStackOptions = {
    threadId: 't-1',
    run: { runId: 'run-1', promptMessageId: 'no-prompt-id' },
    ports: {
      agentsFiles: new MapAgentsFinder({}),
      queue: new ScriptedQueue(queued),
      notifier,
      events,
      clock,
    },
    modelCallLimit: 20,
    stepLimitNoticeAt: 2,
    replyToolName: 'reply',
    isTrustedAuthor: () => true,
    circuitBreakerThreshold: 2,
    primaryModel: { modelId: 'primary', provider: 'anthropic' },
    modelCallTimeoutMs: 60_000,
    ...relaxedLoopOptions(),
    ...overrides,
  };
  return { options, events, notifier, clock };
}
