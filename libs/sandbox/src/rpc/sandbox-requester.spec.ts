import { defineRequest } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { brokerStopping } from './broker-stopping.js';
import { callSandboxRepeatable, type SandboxRequester } from './sandbox-requester.js';

const Probe = defineRequest({
  service: 'sandbox',
  op: 'probe',
  request: z.object({ threadId: z.string() }),
  response: z.object({ answeredBy: z.number() }),
  description: 'a request safe to repeat',
});
const threadId = randomUUID();

/**
 * Calls the probe with a requester whose answers are scripted, one per request, each moving the
 * clock by `msPerRequest`; resolves with the outcome, the wait each request was given and the pauses between.
 */
async function repeat(
  answers: (number | AppError)[],
  budget: { attemptMs: number; totalMs: number; pauseMs?: number },
  msPerRequest = 0,
) {
  const waits: number[] = [];
  let clock = 0;
  const requester: SandboxRequester = {
    request: <T>(_subject: string, _payload: unknown, options?: { timeoutMs?: number }) => {
      waits.push(options?.timeoutMs ?? -1);
      clock += msPerRequest;
      const answer = answers.shift();
      if (answer === undefined) throw new Error('an unscripted request');
      return answer instanceof AppError
        ? Promise.reject(answer)
        : Promise.resolve({ answeredBy: answer } as T);
    },
    serve: () => Promise.reject(new Error('serve is not expected')),
  };
  const pauses: number[] = [];
  const sleep = (ms: number) => {
    pauses.push(ms);
    clock += ms;
    return Promise.resolve();
  };
  const outcome = await callSandboxRepeatable(
    requester,
    Probe,
    threadId,
    { threadId },
    {
      ...budget,
      now: () => clock,
      sleep,
    },
  ).catch((error: unknown) => ({ error }));
  return { outcome, waits, pauses };
}

const timeout = () => new AppError('TIMEOUT', 'no answer', { retryable: true });

describe('callSandboxRepeatable', () => {
  it('sends again when a broker never answered (killed while it held the request)', async () => {
    const { outcome, waits } = await repeat([timeout(), 2], { attemptMs: 150, totalMs: 600 }, 150);
    expect(outcome).toEqual({ answeredBy: 2 });
    expect(waits).toEqual([150, 150]);
  });

  it("sends again while the thread's lock is held by a broker still setting the sandbox up", async () => {
    const held = new AppError('LEASE_HELD', 'sandbox.x stayed locked', { retryable: true });
    const { outcome } = await repeat([held, 7], { attemptMs: 10, totalMs: 50 });
    expect(outcome).toEqual({ answeredBy: 7 });
  });

  it('pauses and sends again while no broker serves the subject (the only one restarting)', async () => {
    const budget = { attemptMs: 10, totalMs: 50, pauseMs: 5 };
    const { outcome, waits, pauses } = await repeat([timeout(), timeout(), 3], budget);
    expect(outcome).toEqual({ answeredBy: 3 });
    expect(waits).toEqual([10, 10, 10]);
    expect(pauses).toEqual([5, 5]);
  });

  it('pauses and sends again when the broker answering is shutting down (another one answers)', async () => {
    const budget = { attemptMs: 10, totalMs: 50, pauseMs: 5 };
    const { outcome, pauses } = await repeat([brokerStopping('setting up the sandbox'), 4], budget);
    expect(outcome).toEqual({ answeredBy: 4 });
    expect(pauses).toEqual([5]);
  });

  it('gives up at once when its caller stops, with the attempt still unanswered', async () => {
    const requester: SandboxRequester = {
      request: () => new Promise(() => undefined),
      serve: () => Promise.reject(new Error('serve is not expected')),
    };
    const stopping = new AbortController();
    const call = callSandboxRepeatable(
      requester,
      Probe,
      threadId,
      { threadId },
      { attemptMs: 150_000, totalMs: 600_000, signal: stopping.signal },
    );
    stopping.abort();
    await expect(call).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: expect.stringContaining('its caller is stopping'),
    });
  });

  it('throws any other error at once', async () => {
    const refused = new AppError('PRECONDITION_FAILED', 'cannot be cloned', { retryable: false });
    const { outcome, waits } = await repeat([refused], { attemptMs: 10, totalMs: 50 });
    expect(outcome).toEqual({ error: refused });
    expect(waits).toHaveLength(1);
  });

  it('gives up once the budget is spent, the last attempt cut to what is left', async () => {
    const unanswered = [timeout(), timeout(), timeout()];
    const { outcome, waits } = await repeat(unanswered, { attemptMs: 150, totalMs: 400 }, 150);
    expect(outcome).toEqual({ error: expect.objectContaining({ code: 'TIMEOUT' }) });
    expect(waits).toEqual([150, 150, 100]);
  });
});
