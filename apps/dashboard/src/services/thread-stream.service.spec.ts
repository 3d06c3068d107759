import type { RunEventRepository, RunEventRow, ThreadRepository, ThreadRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { RunEventNotifier } from './run-event-notifier.service.js';
import {
  STREAMS_PER_PERSON,
  ThreadStreamService,
  type StreamSink,
} from './thread-stream.service.js';

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

/** The service over a thread that exists and these pages of its events. */
function serviceOver(listByThread: RunEventRepository['listByThread']): ThreadStreamService {
  const threads = strictMock<ThreadRepository>({
    get: () => Promise.resolve({ id: THREAD } as ThreadRow),
  });
  const events = strictMock<RunEventRepository>({ listByThread });
  return new ThreadStreamService(threads, events, new RunEventNotifier());
}

/** A stream of the thread to `sink` for `person`, until `gone` aborts. */
function streamTo(
  service: ThreadStreamService,
  sink: FullSink,
  gone: AbortSignal,
  person: string | null,
) {
  return service.stream(THREAD, { after: 0, sink, gone, mayRead: () => Promise.resolve(), person });
}

describe('ThreadStreamService', () => {
  it('writes no further event to a reader that does not read until its socket drains', async () => {
    const listed: number[] = [];
    const service = serviceOver((_id, query) => {
      listed.push(query?.afterPosition ?? 0);
      return Promise.resolve(listed.length === 1 ? [eventAt(1), eventAt(2), eventAt(3)] : []);
    });
    const sink = new FullSink();
    const reader = new AbortController();
    const streaming = streamTo(service, sink, reader.signal, null);
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

  it('lets one person hold so many streams open and no more; another opens once one closes', async () => {
    const service = serviceOver(() => Promise.resolve([]));
    const opened: { gone: AbortController; sink: FullSink; done: Promise<void> }[] = [];
    const open = (person: string) => {
      const gone = new AbortController();
      const sink = new FullSink();
      const done = streamTo(service, sink, gone.signal, person);
      opened.push({ gone, sink, done });
      return done;
    };
    try {
      for (let n = 0; n < STREAMS_PER_PERSON; n += 1) void open('octocat');
      await new Promise((resolve) => setImmediate(resolve));
      await expect(open('octocat')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      void open('hubot'); // another person's are not counted against octocat's
      opened[0]!.gone.abort();
      await opened[0]!.done;
      void open('octocat');
      await new Promise((resolve) => setImmediate(resolve));
      expect(opened.at(-1)!.sink.written).toEqual(['retry: 2000\n\n']);
    } finally {
      for (const stream of opened) stream.gone.abort();
      await Promise.allSettled(opened.map((stream) => stream.done));
    }
  });
});
