import type { Envelope } from '@caravel/contracts';
import type { BusMessageRepository } from '@caravel/db';
import type { ReplayOptions, StoredMessage } from '../bus.port.js';
import { filterToRegex } from './subject-filter.js';

const PAGE = 500;

/** Where a replay reads: the stored stream name and the name callers know it by. */
export interface ReplaySource {
  messages: BusMessageRepository;
  storedStream: string;
  stream: string;
}

/**
 * Reads a stream from the log in sequence order, a page at a time, narrowed by thread, subject
 * filter, first sequence and first time. Messages published while it runs are included.
 */
export async function* replayLog(
  source: ReplaySource,
  options: ReplayOptions = {},
): AsyncGenerator<StoredMessage> {
  const subjectRegex = options.filter === undefined ? undefined : filterToRegex(options.filter);
  let after = Math.max(0, (options.fromSequence ?? 1) - 1);
  for (;;) {
    const rows = await source.messages.read({
      stream: source.storedStream,
      afterSequence: after,
      ...(subjectRegex === undefined ? {} : { subjectRegex }),
      ...(options.threadId === undefined ? {} : { threadId: options.threadId }),
      ...(options.fromTime === undefined ? {} : { fromTime: options.fromTime }),
      limit: PAGE,
    });
    for (const row of rows) {
      yield {
        stream: source.stream,
        sequence: row.sequence,
        subject: row.subject,
        storedAt: row.storedAt,
        envelope: JSON.parse(row.payload) as Envelope,
      };
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE) return;
    after = last.sequence;
  }
}
