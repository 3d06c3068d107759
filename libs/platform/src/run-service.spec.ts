import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { closeOnSignals } from './run-service.js';
import type { ServiceHost } from './service-host.js';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

describe('closeOnSignals', () => {
  let before: Map<string, ((...args: unknown[]) => void)[]>;
  let written: string[];

  beforeEach(() => {
    before = new Map(SIGNALS.map((s) => [s, process.listeners(s) as never]));
    written = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      written.push(String(chunk));
      return true;
    });
  });

  afterEach(() => {
    // The listener a case did not fire stays registered: take it off again.
    for (const signal of SIGNALS) {
      for (const listener of process.listeners(signal)) {
        if (!before.get(signal)?.includes(listener as never)) process.off(signal, listener);
      }
    }
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  const hostClosing = (close: () => Promise<void>) => ({ close }) as unknown as ServiceHost;

  it('exits 0 once the host has closed', async () => {
    const exits: number[] = [];
    closeOnSignals(
      hostClosing(() => Promise.resolve()),
      10_000,
      (code) => exits.push(code),
    );
    process.emit('SIGTERM');
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([0]);
    expect(written).toEqual(['SIGTERM: draining (up to 10000 ms)\n']);
  });

  it('says why it exits 1 when closing fails', async () => {
    const exits: number[] = [];
    const failing = () => Promise.reject(new Error('the database would not close'));
    closeOnSignals(hostClosing(failing), 10_000, (code) => exits.push(code));
    process.emit('SIGINT');
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([1]);
    expect(written.at(-1)).toBe(
      'SIGINT: closing failed: Error: the database would not close; exiting 1\n',
    );
  });

  it('says it did not drain in time when the grace runs out', async () => {
    jest.useFakeTimers();
    const exits: number[] = [];
    closeOnSignals(
      hostClosing(() => new Promise(() => undefined)),
      10_000,
      (code) => exits.push(code),
    );
    process.emit('SIGTERM');
    await jest.advanceTimersByTimeAsync(9_999);
    expect(exits).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    expect(written.at(-1)).toBe('SIGTERM: not drained within 10000 ms; exiting 1\n');
  });
});
