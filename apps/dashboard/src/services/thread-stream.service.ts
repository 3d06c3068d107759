import { RunEventRepository, ThreadRepository, type RunEventRow } from '@caravel/db';
import { AppError, isAppError } from '@caravel/errors';
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { RunEventNotifier } from './run-event-notifier.service.js';

/** Safety-net poll, for events indexed by another replica of the dashboard. */
const POLL_MS = 2_000;
/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
const BATCH = 500;

/** The part of an HTTP response a stream writes to. */
export interface StreamSink {
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** False when the chunk waits in memory: the socket is full until `drain`. */
  write(chunk: string): boolean;
  end(): unknown;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/** One SSE message: the event row as JSON, its thread position as the id. */
export function sseMessage(event: RunEventRow): string {
  return `id: ${event.position}\nevent: run-event\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Streams one person may hold open at once in a dashboard process. A browser holds one per open
 * thread page (at most six over HTTP/1.1); each polls the database while it is open, so one
 * person's thousand would load it for everyone.
 */
export const STREAMS_PER_PERSON = 20;

/** One reader of a thread's stream. */
export interface StreamReader {
  /** The position they resume after (Last-Event-ID or `?after`). */
  after: number | undefined;
  sink: StreamSink;
  /** Aborted when the reader goes. */
  gone: AbortSignal;
  /** Throws the refusal once the reader may no longer read (asked before each new batch). */
  mayRead: () => Promise<void>;
  /** Whose stream it is (a person's login), counted against {@link STREAMS_PER_PERSON}; null: not. */
  person: string | null;
}

/** The stream's last message when its reader may no longer read: the refusal, as the API words it. */
export function refusedMessage(error: AppError): string {
  const body = { error: { code: error.code, message: error.message } };
  return `event: refused\ndata: ${JSON.stringify(body)}\n\n`;
}

/**
 * A thread's run events as Server-Sent Events: everything after the client's last event id (the
 * `Last-Event-ID` a reconnecting browser sends, or `?after`), then each new event as it is
 * indexed. Ids are thread positions (the order the events were indexed in, with no gap), so a
 * reconnect resumes with no gap and no repeat even when an event was indexed after a
 * later-sequenced one. Before each batch after the first the reader is judged again (`mayRead`):
 * one refused (a revoked token, an ended session, a repository they lost) gets a `refused` event
 * with the error, and the stream ends, so a browser's reconnect meets the refusal as a status.
 * An event waits for the socket to drain before the next is written: a reader that stops reading
 * holds one event in the server's memory, not the thread's history.
 */
@Injectable()
export class ThreadStreamService implements BeforeApplicationShutdown {
  /** Aborted as the dashboard stops: an open stream would keep its HTTP server from closing. */
  private readonly stopping = new AbortController();
  /** Open streams per person (each polls the database while open). */
  private readonly open = new Map<string, number>();

  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunEventRepository) private readonly events: RunEventRepository,
    @Inject(RunEventNotifier) private readonly notifier: RunEventNotifier,
  ) {}

  /** Streams `threadId` to `reader` until they go, may no longer read, or the dashboard stops. */
  async stream(threadId: string, reader: StreamReader): Promise<void> {
    if (!(await this.threads.get(threadId)))
      throw new AppError('NOT_FOUND', `no thread ${threadId}`);
    const release = this.hold(reader.person);
    try {
      reader.sink.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      reader.sink.write('retry: 2000\n\n');
      await this.follow(threadId, reader, AbortSignal.any([reader.gone, this.stopping.signal]));
    } finally {
      release();
      reader.sink.end();
    }
  }

  private async follow(threadId: string, reader: StreamReader, closed: AbortSignal): Promise<void> {
    const { sink, mayRead } = reader;
    let cursor = reader.after ?? 0;
    const signal = new WakeSignal();
    const unsubscribe = this.notifier.subscribe(threadId, () => signal.wake());
    closed.addEventListener('abort', () => signal.wake(), { once: true });
    const keepalive = setInterval(() => sink.write(': keep-alive\n\n'), KEEPALIVE_MS);
    let asked = true; // the caller was admitted just before the stream opened
    try {
      while (!closed.aborted) {
        signal.reset();
        const batch = await this.events.listByThread(threadId, {
          afterPosition: cursor,
          limit: BATCH,
        });
        if (batch.length > 0 && !asked && !(await stillAdmittedBy(mayRead, sink))) return;
        asked = false;
        for (const event of batch) {
          cursor = event.position;
          // A reader that does not read must not make the server hold the thread's history.
          if (!sink.write(sseMessage(event))) await drained(sink, closed);
          if (closed.aborted) break;
        }
        if (batch.length < BATCH) await signal.wait(POLL_MS);
      }
    } finally {
      clearInterval(keepalive);
      unsubscribe();
    }
  }

  /** Counts one more open stream of `person`; refused past {@link STREAMS_PER_PERSON}. */
  private hold(person: string | null): () => void {
    if (person === null) return () => undefined;
    const held = this.open.get(person) ?? 0;
    if (held >= STREAMS_PER_PERSON) {
      throw new AppError(
        'RATE_LIMITED',
        `${person} has ${held} thread streams open already, the most one person may: close a thread page you no longer watch`,
      );
    }
    this.open.set(person, held + 1);
    return () => {
      const left = (this.open.get(person) ?? 1) - 1;
      if (left === 0) this.open.delete(person);
      else this.open.set(person, left);
    };
  }

  /** Ends every open stream (a browser reconnects, to another replica or to the next start). */
  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }
}

/** Resolves once the sink's socket has room again, or the stream ends. */
function drained(sink: StreamSink, closed: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      sink.off('drain', done);
      closed.removeEventListener('abort', done);
      resolve();
    };
    sink.once('drain', done);
    closed.addEventListener('abort', done, { once: true });
  });
}

/** Whether the reader may still read; if not, the refusal is the stream's last message. */
async function stillAdmittedBy(mayRead: () => Promise<void>, sink: StreamSink): Promise<boolean> {
  try {
    await mayRead();
    return true;
  } catch (error) {
    if (!isAppError(error)) throw error;
    sink.write(refusedMessage(error));
    return false;
  }
}

/** A wake-up that is not lost when it comes while nobody waits (it then ends the next wait). */
class WakeSignal {
  private pending = false;
  private release: (() => void) | null = null;

  reset(): void {
    this.pending = false;
  }

  wake(): void {
    this.pending = true;
    this.release?.();
  }

  /** Resolves at the next wake (at once if one came since the reset) or after `ms`. */
  wait(ms: number): Promise<void> {
    if (this.pending) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.release = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.release = done;
    });
  }
}
