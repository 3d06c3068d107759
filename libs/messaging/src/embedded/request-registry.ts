import { randomInt } from 'node:crypto';
import { AppError } from '@caravel/errors';
import type { RequestHandler } from '../bus.port.js';
import { outgoingRequestHeaders } from '../trace/index.js';
// The JetStream adapter's wire format, so both adapters answer and fail byte-for-byte alike.
import {
  decodeJson,
  decodeReply,
  encodeFailure,
  encodeJson,
  encodeSuccess,
} from '../jetstream/reply-codec.js';
import { filterTokens, subjectMatches } from './subject-filter.js';

interface Server {
  readonly pattern: string;
  readonly queue: string | undefined;
  readonly handler: RequestHandler;
  /** Requests being answered, so a drain can wait for them. */
  readonly active: Set<Promise<unknown>>;
}

/** A served pattern; `remove` stops new requests and waits for the ones being answered. */
export interface ServedPattern {
  remove(): Promise<void>;
}

/**
 * In-process request/reply for the embedded bus, with NATS routing rules: every plain server
 * whose pattern matches gets the request, each queue group picks one member at random, and the
 * first reply wins. Payloads and errors go through the same encoding as a wire would.
 */
export class RequestRegistry {
  private readonly servers = new Set<Server>();

  serve(pattern: string, handler: RequestHandler, queue?: string): ServedPattern {
    filterTokens(pattern);
    const server: Server = { pattern, queue, handler, active: new Set() };
    this.servers.add(server);
    return {
      remove: async () => {
        this.servers.delete(server);
        await Promise.allSettled([...server.active]);
      },
    };
  }

  /** Sends a request; rejects with `TIMEOUT` when nobody serves the subject or answers in time. */
  async request(subject: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    const chosen = this.route(subject);
    if (chosen.length === 0) {
      throw new AppError('TIMEOUT', `no responders for request on ${subject}`);
    }
    const request = decodeJson(encodeJson(payload));
    const headers = outgoingRequestHeaders();
    const replies = chosen.map((server) => this.answer(server, request, subject, headers));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new AppError('TIMEOUT', `request on ${subject} got no reply within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
    });
    try {
      return decodeReply(await Promise.race([Promise.race(replies), timeout]), subject);
    } finally {
      clearTimeout(timer);
    }
  }

  private route(subject: string): Server[] {
    const plain: Server[] = [];
    const groups = new Map<string, Server[]>();
    for (const server of this.servers) {
      if (!subjectMatches(server.pattern, subject)) continue;
      if (server.queue === undefined) {
        plain.push(server);
        continue;
      }
      groups.set(server.queue, [...(groups.get(server.queue) ?? []), server]);
    }
    const picked = [...groups.values()].map((members) => members[randomInt(members.length)]);
    return [...plain, ...picked.filter((s): s is Server => s !== undefined)];
  }

  private answer(
    server: Server,
    request: unknown,
    subject: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<Uint8Array> {
    const reply = Promise.resolve()
      .then(() => server.handler(request, subject, { ...headers }))
      .then((value) => encodeSuccess(value))
      .catch(encodeFailure);
    server.active.add(reply);
    void reply.finally(() => server.active.delete(reply));
    return reply;
  }
}
