import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { SandboxCallerAlive } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { randomUUID } from 'node:crypto';
import { whileCallerAlive } from './caller-watch.js';

const callerId = randomUUID();
const callId = randomUUID();

/** A bus that records each probe and answers it as `answer` says at that moment. */
function probedBus(answer: () => Promise<unknown>) {
  const probes: { subject: string; payload: unknown }[] = [];
  const bus = strictMock<Bus>(
    {
      request: <T>(subject: string, payload: unknown) => {
        probes.push({ subject, payload });
        return answer() as Promise<T>;
      },
    },
    'the caller-probing bus',
  );
  return { bus, probes };
}

describe('whileCallerAlive', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('probes the caller at once, naming the call, then every interval until the work ends', async () => {
    const { bus, probes } = probedBus(() => Promise.resolve({ alive: true }));
    let finish: (value: string) => void = () => undefined;
    const work = new Promise<string>((resolve) => (finish = resolve));
    const watched = whileCallerAlive(bus, { callerId, callId }, 1_000, work, () =>
      Promise.resolve(),
    );
    expect(probes).toEqual([
      {
        subject: SandboxCallerAlive.subjectFor(callerId),
        payload: { callerId, callId, everyMs: 1_000 },
      },
    ]);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(probes).toHaveLength(4);
    finish('done');
    await expect(watched).resolves.toBe('done');
    await jest.advanceTimersByTimeAsync(10_000);
    expect(probes).toHaveLength(4);
  });

  it('calls onGone once after two probes in a row fail, and leaves the work running', async () => {
    const { bus, probes } = probedBus(() => Promise.reject(new Error('no responders')));
    const gone = jest.fn(() => Promise.resolve());
    let finish: (value: string) => void = () => undefined;
    const work = new Promise<string>((resolve) => (finish = resolve));
    const watched = whileCallerAlive(bus, { callerId, callId }, 1_000, work, gone);
    await jest.advanceTimersByTimeAsync(0);
    expect(gone).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(gone).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(gone).toHaveBeenCalledTimes(1);
    expect(probes).toHaveLength(2);
    finish('finished unseen');
    await expect(watched).resolves.toBe('finished unseen');
  });

  it('sends no probe for a request that names no caller', async () => {
    const { bus, probes } = probedBus(() => Promise.resolve({ alive: true }));
    await expect(
      whileCallerAlive(bus, {}, 1_000, Promise.resolve(7), () => Promise.resolve()),
    ).resolves.toBe(7);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(probes).toEqual([]);
  });
});
