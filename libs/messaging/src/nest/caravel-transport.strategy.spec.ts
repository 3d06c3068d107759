import { SandboxPing, StartRunV1 } from '@caravel/contracts';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Bus, RequestHandler, Subscription } from '../bus.port.js';
import { CaravelTransport, SLOW_DRAIN_WARNING_MS } from './caravel-transport.strategy.js';
import type { CaravelContext } from './caravel.context.js';

/** A consumer whose drain ends only when `finish` is called. */
function heldSubscription(): { subscription: Subscription; finish: () => void } {
  let finish = () => undefined as void;
  const drained = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { subscription: { drain: () => drained }, finish };
}

describe('CaravelTransport close', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('names a consumer that has not drained after the warning delay, and only that one', async () => {
    const held = heldSubscription();
    const quick: Subscription = { drain: () => Promise.resolve() };
    const subscriptions = [held.subscription, quick];
    const bus = strictMock<Bus>(
      { consume: () => Promise.resolve(subscriptions.shift() ?? quick) },
      'bus',
    );
    const transport = new CaravelTransport(bus, [StartRunV1]);
    // Nest keeps a handler's extras on the function: each handler is its own.
    const dispatch = () => Promise.resolve();
    const dashboard = () => Promise.resolve();
    transport.addHandler(StartRunV1.pattern, dispatch, true, { durable: 'dispatch-run-start' });
    transport.addHandler(StartRunV1.pattern, dashboard, true, { durable: 'dashboard-run-start' });
    await new Promise<void>((resolve, reject) => {
      transport.listen((error) =>
        error ? reject(new Error('the transport did not start')) : resolve(),
      );
    });
    const warnings: string[] = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });

    jest.useFakeTimers();
    const closed = transport.close();
    await jest.advanceTimersByTimeAsync(SLOW_DRAIN_WARNING_MS - 1);
    expect(warnings).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(warnings).toEqual([
      'still draining consumer dispatch-run-start: a handler has not ended',
    ]);
    held.finish();
    await closed;
  });

  it('drains the consumers while the request servers still answer, then answers a request still running with shutting_down', async () => {
    const order: string[] = [];
    let serve: RequestHandler | undefined;
    const bus = strictMock<Bus>(
      {
        consume: () =>
          Promise.resolve({ drain: () => Promise.resolve(void order.push('consumer')) }),
        serve: (_subject: string, handler: RequestHandler) => {
          serve = handler;
          return Promise.resolve({ drain: () => Promise.resolve(void order.push('server')) });
        },
      },
      'bus',
    );
    const transport = new CaravelTransport(bus, [StartRunV1], [SandboxPing]);
    const ping = { threadId: '6f1c1f7e-3f4a-4c86-9a59-6a4f0d2b9c11' };
    let finishWork = () => undefined as void;
    const work = new Promise<void>((resolve) => (finishWork = resolve));
    transport.addHandler(StartRunV1.pattern, () => Promise.resolve(), true, { durable: 'runner' });
    transport.addHandler(SandboxPing.pattern, async () => {
      await work;
      order.push('work ended');
      return { threadId: ping.threadId, provider: 'local', alive: true };
    });
    await new Promise<void>((resolve, reject) => {
      transport.listen((error) => (error ? reject(new Error('not started')) : resolve()));
    });

    await transport.closeConsumers();
    expect(order).toEqual(['consumer']);
    const running = serve!(ping, SandboxPing.subjectFor(ping.threadId), {});
    const closed = transport.close();

    const refusal: unknown = await running.catch((error: unknown) => error);
    expect(isAppError(refusal) && refusal.details).toEqual({ reason: 'shutting_down' });
    expect(isAppError(refusal) && refusal.code).toBe('DEPENDENCY_UNAVAILABLE');
    // The answer did not wait for the work; the close does.
    expect(order).toEqual(['consumer', 'server']);
    finishWork();
    await closed;
    expect(order).toEqual(['consumer', 'server', 'work ended']);
  });

  it("aborts a running request's stopping when the servers drain, so work that reads it ends the close", async () => {
    let serve: RequestHandler | undefined;
    const bus = strictMock<Bus>(
      {
        serve: (_subject: string, handler: RequestHandler) => {
          serve = handler;
          return Promise.resolve({ drain: () => Promise.resolve() });
        },
      },
      'bus',
    );
    const transport = new CaravelTransport(bus, [], [SandboxPing]);
    const ping = { threadId: '6f1c1f7e-3f4a-4c86-9a59-6a4f0d2b9c11' };
    const seen: string[] = [];
    // Work that never ends on its own (a model that does not answer), only when told to stop.
    transport.addHandler(
      SandboxPing.pattern,
      async (_request: unknown, context: CaravelContext) => {
        seen.push(context.stopping.aborted ? 'stopping at start' : 'running');
        await new Promise((resolve) => context.stopping.addEventListener('abort', resolve));
        seen.push('stopped');
        throw new Error('stopped');
      },
    );
    await new Promise<void>((resolve, reject) => {
      transport.listen((error) => (error ? reject(new Error('not started')) : resolve()));
    });

    const running = serve!(ping, SandboxPing.subjectFor(ping.threadId), {});
    await transport.closeConsumers();
    expect(seen).toEqual(['running']);
    await transport.close();
    expect(seen).toEqual(['running', 'stopped']);
    await expect(running).rejects.toMatchObject({ details: { reason: 'shutting_down' } });
  });
});
