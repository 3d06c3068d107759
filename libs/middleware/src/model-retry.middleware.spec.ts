import { describe, it, expect } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { findAppError } from './error-inspection.js';
import { modelRetryMiddleware, retryDelayMs } from './model-retry.middleware.js';
import type { Clock } from './ports.js';
import { runAgent } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn } from './testing/scripted-chat-model.js';

/** A clock whose timers fire at once, recording how long each wait asked for. */
class InstantClock implements Clock {
  readonly waits: number[] = [];
  setTimer(ms: number, callback: () => void): () => void {
    this.waits.push(ms);
    queueMicrotask(callback);
    return () => undefined;
  }
  nowMs(): number {
    return 0;
  }
}

/** An error shaped like the OpenAI SDK's APIError. */
function httpError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`${status} provider said no`), { status, headers });
}

function setup(maxRetries: number) {
  const clock = new InstantClock();
  const events = new RecordingEvents();
  const middleware = modelRetryMiddleware({ provider: 'openai', maxRetries, clock, events });
  return { clock, events, middleware };
}

describe('modelRetryMiddleware', () => {
  it("waits what a 429's retry-after asks, then carries on", async () => {
    const { clock, events, middleware } = setup(3);
    const model = new ScriptedChatModel([
      httpError(429, { 'retry-after': '7' }),
      textTurn('answered'),
    ]);

    const out = await runAgent(model, [], [middleware]);

    expect(out.messages.at(-1)?.content).toBe('answered');
    expect(clock.waits).toEqual([7000]);
    expect(events.events).toEqual([
      expect.objectContaining({ type: 'model_retry', attempt: 1, waitMs: 7000 }),
    ]);
  });

  it('backs off exponentially on 5xx without retry-after and gives up with a coded error', async () => {
    const { clock, middleware } = setup(2);
    const model = new ScriptedChatModel([httpError(500), httpError(502), httpError(503)]);

    const error = await runAgent(model, [], [middleware]).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(findAppError(error)?.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(model.calls).toHaveLength(3);
    expect(clock.waits).toEqual([1000, 2000]);
  });

  it('does not retry a refused key: the operator must fix it', async () => {
    const { clock, middleware } = setup(3);
    const model = new ScriptedChatModel([httpError(401)]);

    const error = await runAgent(model, [], [middleware]).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(findAppError(error)?.code).toBe('CONFIG_INVALID');
    expect(model.calls).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('caps a long retry-after at the longest wait', () => {
    const error = new AppError('RATE_LIMITED', 'x', { details: { retryAfterSeconds: 3600 } });
    expect(retryDelayMs(error, 0, 1000, 120_000)).toBe(120_000);
  });
});
