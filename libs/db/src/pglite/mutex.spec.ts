import { describe, expect, it } from '@jest/globals';
import { Mutex } from './mutex.js';

describe('Mutex', () => {
  it('runs holders one at a time, in the order they asked', async () => {
    const mutex = new Mutex();
    const log: string[] = [];
    const hold = (name: string) =>
      mutex.runExclusive(async () => {
        log.push(`${name}:in`);
        await Promise.resolve();
        await Promise.resolve();
        log.push(`${name}:out`);
      });
    await Promise.all([hold('a'), hold('b'), hold('c')]);
    expect(log).toEqual(['a:in', 'a:out', 'b:in', 'b:out', 'c:in', 'c:out']);
  });

  it('releases after a failing holder and ignores a second release', async () => {
    const mutex = new Mutex();
    await expect(mutex.runExclusive(() => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    const release = await mutex.acquire();
    release();
    release();
    await expect(mutex.runExclusive(() => Promise.resolve('free'))).resolves.toBe('free');
  });

  it('hands over to a waiting holder after the event loop had a turn, and a free lock at once', async () => {
    const mutex = new Mutex();
    const order: string[] = [];
    const first = await mutex.acquire();
    const second = mutex.acquire().then((release) => {
      order.push('second holds');
      release();
    });
    await Promise.resolve();
    setImmediate(() => order.push('sockets read'));
    first();
    await second;
    // Free now: taken without waiting for a turn of the loop.
    setImmediate(() => order.push('next turn'));
    const third = await mutex.acquire();
    order.push('third holds');
    third();
    await new Promise((resolve) => setImmediate(resolve));

    expect(order).toEqual(['sockets read', 'second holds', 'third holds', 'next turn']);
  });
});
