import { AppError } from '@caravel/errors';
import { errors, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/nats-core';
import type { RequestHandler, Subscription } from '../bus.port.js';
import type { BusLogger } from '../settlement/index.js';
import { outgoingRequestHeaders } from '../trace/index.js';
import type { Namespace } from './namespace.js';
import {
  decodeJson,
  decodeReply,
  encodeFailure,
  encodeJson,
  encodeSuccess,
} from './reply-codec.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** Serves request/reply on a (namespaced) core NATS subject, optionally in a queue group. */
export async function serveRequests(
  nc: NatsConnection,
  namespace: Namespace,
  subject: string,
  handler: RequestHandler,
  options: { queue?: string; logger: BusLogger },
): Promise<Subscription> {
  const inFlight = new Set<Promise<void>>();
  const answer = async (msg: Msg): Promise<void> => {
    let reply: Uint8Array;
    try {
      reply = encodeSuccess(
        await handler(decodeJson(msg.data), namespace.logicalSubject(msg.subject), headersOf(msg)),
      );
    } catch (error) {
      reply = encodeFailure(error);
    }
    if (!msg.respond(reply)) options.logger.warn(`request on ${msg.subject} had no reply subject`);
  };
  const sub = nc.subscribe(namespace.subject(subject), {
    ...(options.queue === undefined ? {} : { queue: options.queue }),
    callback: (error, msg) => {
      if (error) return options.logger.error(`serving ${subject}: ${error.message}`);
      const pending = answer(msg)
        .catch((cause: unknown) =>
          options.logger.error(`answering ${msg.subject} failed: ${String(cause)}`),
        )
        .finally(() => inFlight.delete(pending));
      inFlight.add(pending);
    },
  });
  // The server must know about the subscription before a request can find it.
  await nc.flush();
  return {
    async drain() {
      await sub.drain().catch(() => undefined);
      await Promise.all(inFlight);
    },
  };
}

/** A request's NATS headers as a plain record (first value of each). */
function headersOf(msg: Msg): Record<string, string> {
  const record: Record<string, string> = {};
  for (const key of msg.headers?.keys() ?? []) record[key] = msg.headers!.get(key);
  return record;
}

function isTimeout(error: unknown): boolean {
  if (error instanceof errors.TimeoutError || error instanceof errors.NoRespondersError)
    return true;
  if (error instanceof errors.RequestError) {
    return error.isNoResponders() || error.cause instanceof errors.TimeoutError;
  }
  return false;
}

/** Sends a request and returns the answer, or throws the responder's AppError, or TIMEOUT. */
export async function sendRequest<T>(
  nc: NatsConnection,
  namespace: Namespace,
  subject: string,
  payload: unknown,
  timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
): Promise<T> {
  let reply: Msg;
  try {
    const headers = natsHeaders();
    for (const [key, value] of Object.entries(outgoingRequestHeaders())) headers.set(key, value);
    reply = await nc.request(namespace.subject(subject), encodeJson(payload), {
      timeout: timeoutMs,
      headers,
    });
  } catch (error) {
    if (isTimeout(error)) {
      throw new AppError('TIMEOUT', `no answer on ${subject} within ${timeoutMs} ms`, {
        cause: error,
      });
    }
    throw new AppError('DEPENDENCY_UNAVAILABLE', `request on ${subject} failed: ${String(error)}`, {
      cause: error,
    });
  }
  return decodeReply<T>(reply.data, subject);
}
