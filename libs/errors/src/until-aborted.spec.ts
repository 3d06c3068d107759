import { describe, expect, it } from '@jest/globals';
import { untilAborted } from './until-aborted.js';

const stopped = () => new Error('stopped');

/** A promise settled from outside, and a count of who listens on a signal. */
function pending<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function listened(signal: AbortSignal): { count: () => number } {
  let count = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
    count += 1;
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
    count -= 1;
    remove(...args);
  };
  return { count: () => count };
}

describe('untilAborted', () => {
  it("answers with the work's value or error while the signal does not abort", async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(7), controller.signal, stopped)).resolves.toBe(7);
    const failing = Promise.reject(new Error('its own'));
    await expect(untilAborted(failing, controller.signal, stopped)).rejects.toThrow('its own');
  });

  it('gives up with the stop error as soon as the signal aborts, the work still running', async () => {
    const controller = new AbortController();
    const work = pending<string>();
    const answer = untilAborted(work.promise, controller.signal, stopped);
    controller.abort();
    await expect(answer).rejects.toThrow('stopped');
    work.resolve('late');
    await expect(work.promise).resolves.toBe('late');
  });

  it('gives up at once on a signal aborted before, and an unhandled failure of the work is not raised', async () => {
    const controller = new AbortController();
    controller.abort();
    const work = pending<string>();
    await expect(untilAborted(work.promise, controller.signal, stopped)).rejects.toThrow('stopped');
    work.reject(new Error('after we gave up'));
    await Promise.resolve();
  });

  it('is the work itself without a signal', () => {
    const work = Promise.resolve(1);
    expect(untilAborted(work, undefined, stopped)).toBe(work);
  });

  it('leaves no listener on a long-lived signal once the work settled', async () => {
    const controller = new AbortController();
    const listeners = listened(controller.signal);
    for (let i = 0; i < 3; i += 1) {
      await untilAborted(Promise.resolve(i), controller.signal, stopped);
    }
    await expect(
      untilAborted(Promise.reject(new Error('x')), controller.signal, stopped),
    ).rejects.toThrow('x');
    expect(listeners.count()).toBe(0);
  });
});
