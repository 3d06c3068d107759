import { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import { runInTrace } from '../trace/index.js';
import type { BehaviourContext } from './bus-behaviour-context.js';
import { uniqueName } from './bus-test-messages.js';
import { sleep } from './eventually.js';

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw new Error(`expected an AppError, got ${String(error)}`);
  }
  throw new Error('expected the request to fail');
}

/** Request/reply: answers, coded errors carried back, timeouts. */
export function describeRequestReplyBehaviour(ctx: BehaviourContext): void {
  describe('request/reply', () => {
    it('answers a request from a served handler in another replica', async () => {
      const [server, client] = await ctx.replicas(2);
      const subject = `sandbox.${uniqueName('t')}.exec`;
      await server!.serve(subject, async (request, on) => ({ echoed: request, on }));

      await expect(client!.request(subject, { cmd: 'ls' }, { timeoutMs: 5000 })).resolves.toEqual({
        echoed: { cmd: 'ls' },
        on: subject,
      });
    });

    it("carries the requesting handler's correlation id and a child of its traceparent", async () => {
      const [server, client] = await ctx.replicas(2);
      const subject = `sandbox.${uniqueName('t')}.exec`;
      await server!.serve(subject, async (_request, _on, headers) => headers);
      const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const trace = { correlationId: 'conversation-7', causationId: null, traceparent: parent };

      const headers = await runInTrace(trace, () =>
        client!.request<Record<string, string>>(subject, {}, { timeoutMs: 5000 }),
      );
      expect(headers['Caravel-Correlation-Id']).toBe('conversation-7');
      expect(headers.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
      expect(headers.traceparent).not.toBe(parent);
    });

    it("gives the requester the handler's AppError code and message", async () => {
      const [server, client] = await ctx.replicas(2);
      const subject = `sandbox.${uniqueName('t')}.exec`;
      await server!.serve(subject, async () => {
        throw new AppError('CONFLICT', 'the sandbox is busy');
      });

      const error = await rejection(client!.request(subject, {}, { timeoutMs: 5000 }));
      expect(error.code).toBe('CONFLICT');
      expect(error.message).toContain('the sandbox is busy');
      expect(error.retryable).toBe(false);
    });

    it('rejects with TIMEOUT when nobody serves the subject', async () => {
      const client = await ctx.replica('client');
      const error = await rejection(
        client.request(`sandbox.${uniqueName('t')}.none`, {}, { timeoutMs: 300 }),
      );
      expect(error.code).toBe('TIMEOUT');
    });

    it('rejects with TIMEOUT when the responder is slower than the timeout', async () => {
      const [server, client] = await ctx.replicas(2);
      const subject = `sandbox.${uniqueName('t')}.slow`;
      await server!.serve(subject, async () => {
        await sleep(1500);
        return 'late';
      });

      const error = await rejection(client!.request(subject, {}, { timeoutMs: 300 }));
      expect(error.code).toBe('TIMEOUT');
    });
  });
}
