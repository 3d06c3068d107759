import type { RunEventRepository, RunEventRow, ThreadRepository, ThreadRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { RunEventNotifier } from './run-event-notifier.service.js';
import { ThreadStreamService, type StreamSink } from './thread-stream.service.js';

const THREAD = '4f1c2b3a-0000-4000-8000-000000000001';

function eventAt(position: number): RunEventRow {
  return {
    id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
    threadId: THREAD,
    runId: null,
    type: 'evt.run.output',
    stream: 'RUN_EVENTS',
    sequence: position,
    position,
    occurredAt: new Date('2026-12-01T00:00:00Z'),
    data: { text: 'x'.repeat(100) },
  };
}

/** A response whose socket is full after the first write: `write` answers false until drained. */
class FullSink extends EventEmitter implements StreamSink {
  readonly written: string[] = [];
  writeHead(): void {}
  write(chunk: string): boolean {
    this.written.push(chunk);
    return false;
  }
  end(): void {}
  positions(): string[] {
    return this.written.flatMap((chunk) => /^id: (\d+)/.exec(chunk)?.[1] ?? []);
  }
}

describe('ThreadStreamService', () => {
  it('writes no further event to a reader that does not read until its socket drains', async () => {
    const threads = strictMock<ThreadRepository>({
      get: () => Promise.resolve({ id: THREAD } as ThreadRow),
    });
    const listed: number[] = [];
    const events = strictMock<RunEventRepository>({
      listByThread: (_id, query) => {
        listed.push(query?.afterPosition ?? 0);
        return Promise.resolve(listed.length === 1 ? [eventAt(1), eventAt(2), eventAt(3)] : []);
      },
    });
    const service = new ThreadStreamService(threads, events, new RunEventNotifier());
    const sink = new FullSink();
    const reader = new AbortController();
    const streaming = service.stream(THREAD, 0, sink, reader.signal, () => Promise.resolve());
    try {
      await new Promise((resolve) => setImmediate(resolve));
      expect(sink.positions()).toEqual(['1']);
      sink.emit('drain');
      await new Promise((resolve) => setImmediate(resolve));
      expect(sink.positions()).toEqual(['1', '2']);
    } finally {
      reader.abort();
      await streaming;
    }
    expect(sink.positions()).toEqual(['1', '2']);
    expect(sink.listenerCount('drain')).toBe(0);
  });
});
