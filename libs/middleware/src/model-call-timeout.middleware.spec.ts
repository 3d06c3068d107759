import { describe, it, expect } from '@jest/globals';
import { isAppError } from '@caravel/errors';
import { findAppError } from './error-inspection.js';
import { modelCallTimeoutMiddleware } from './model-call-timeout.middleware.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { ManualClock } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn } from './testing/scripted-chat-model.js';

describe('modelCallTimeoutMiddleware', () => {
  it('fails a stalled model call with a retryable TIMEOUT once the timer fires', async () => {
    const clock = new ManualClock();
    const model = new ScriptedChatModel(['hang']);
    const called = model.nextCall();
    const run = runAgent(
      model,
      [recordingTool('ls').tool],
      [modelCallTimeoutMiddleware({ timeoutMs: 5000, clock })],
    );

    await called;
    clock.fireAll();

    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    const coded = findAppError(error);
    expect(isAppError(coded)).toBe(true);
    expect(coded?.code).toBe('TIMEOUT');
    expect(coded?.retryable).toBe(true);
    expect(coded?.message).toMatch(/within 5000 ms/);
  });

  it('passes an answer through and cancels its timer', async () => {
    const clock = new ManualClock();
    const model = new ScriptedChatModel([textTurn('quick')]);

    const out = await runAgent(
      model,
      [recordingTool('ls').tool],
      [modelCallTimeoutMiddleware({ timeoutMs: 5000, clock })],
    );

    expect(out.messages.at(-1)?.content).toBe('quick');
    expect(clock.pending()).toBe(0);
  });
});
