import { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import { RequestRegistry } from './request-registry.js';

describe('in-process request registry', () => {
  it('routes by wildcard pattern and sends values through the wire encoding', async () => {
    const registry = new RequestRegistry();
    registry.serve('sandbox.*.exec', (request, subject) =>
      Promise.resolve({ request, subject, at: new Date(0) }),
    );

    await expect(registry.request('sandbox.t1.exec', { cmd: 'ls' }, 1000)).resolves.toEqual({
      request: { cmd: 'ls' },
      subject: 'sandbox.t1.exec',
      at: '1970-01-01T00:00:00.000Z',
    });
  });

  it('gives one member of a queue group each request', async () => {
    const registry = new RequestRegistry();
    const calls: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      registry.serve('svc.op', () => Promise.resolve(calls.push(name)), 'workers');
    }
    for (let i = 0; i < 30; i += 1) await registry.request('svc.op', null, 1000);
    expect(calls).toHaveLength(30);
    expect(new Set(calls).size).toBeGreaterThan(1);
  });

  it("rethrows the server's AppError with its code and retryable flag", async () => {
    const registry = new RequestRegistry();
    registry.serve('svc.op', () =>
      Promise.reject(new AppError('LEASE_HELD', 'someone else runs it')),
    );
    await expect(registry.request('svc.op', {}, 1000)).rejects.toMatchObject({
      code: 'LEASE_HELD',
      message: 'someone else runs it',
      retryable: true,
      details: { subject: 'svc.op', remoteCode: 'LEASE_HELD' },
    });
  });

  it('rejects with TIMEOUT when nobody serves or when the answer is late', async () => {
    const registry = new RequestRegistry();
    await expect(registry.request('svc.none', {}, 1000)).rejects.toMatchObject({ code: 'TIMEOUT' });
    const served = registry.serve(
      'svc.slow',
      () => new Promise((resolve) => setTimeout(resolve, 300)),
    );
    await expect(registry.request('svc.slow', {}, 50)).rejects.toMatchObject({ code: 'TIMEOUT' });
    await served.remove();
  });

  it('stops routing to a removed server', async () => {
    const registry = new RequestRegistry();
    const served = registry.serve('svc.op', () => Promise.resolve('hi'));
    await served.remove();
    await expect(registry.request('svc.op', {}, 1000)).rejects.toMatchObject({ code: 'TIMEOUT' });
  });
});
