import type { RequestDefinition } from '@caravel/contracts';
import { AppError, isAppError, untilAborted } from '@caravel/errors';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { isBrokerGone } from './broker-call-watch.js';
import { isBrokerStopping } from './broker-stopping.js';

/**
 * What the sandbox RPC client needs of a message bus: request/reply and serving a subject. The
 * messaging library's `Bus` satisfies it as is (JetStream or embedded).
 */
export interface SandboxRequester {
  request<T = unknown>(
    subject: string,
    payload: unknown,
    options?: { timeoutMs?: number },
  ): Promise<T>;
  serve(
    subject: string,
    handler: (request: unknown, subject: string) => Promise<unknown>,
  ): Promise<{ drain(): Promise<void> }>;
}

/** Default wait for an answer to anything but `exec` (which waits for its command). */
export const DEFAULT_RPC_TIMEOUT_MS = 60_000;

/** Sends one sandbox request on `<service>.<key>.<op>` and validates the answer. */
export async function callSandbox<TReq extends z.ZodObject, TRes extends z.ZodType>(
  requester: SandboxRequester,
  definition: RequestDefinition<TReq, TRes>,
  key: string,
  payload: z.input<TReq>,
  timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
): Promise<z.output<TRes>> {
  const raw = await requester.request(definition.subjectFor(key), payload, { timeoutMs });
  return definition.parseResponse(raw);
}

/**
 * Stands between each attempt of a request and its caller: a `BrokerCallWatch` fails the attempt
 * once the broker working on it has gone silent.
 */
export type AttemptWatch = <T>(attempt: Promise<T>) => Promise<T>;

/** How many times a request that changes something is sent in all when no answer comes. */
const ATTEMPTS_WITHOUT_ANSWER = 3;

/**
 * Sends a request that changes something (a write, an edit, a commit, a push), under one
 * `requestId` kept across its retries: when no answer comes in time it is sent again with the same
 * id, and the broker answers with the outcome of the work it did (or is still doing) for that id,
 * so a slow answer is never reported as the opposite of what happened. Only after the last attempt
 * does it fail, saying the outcome is unknown. With `watch`, an attempt whose broker is gone fails
 * at once with the watch's error, and is not sent again.
 */
export async function callSandboxOnce<TReq extends z.ZodObject, TRes extends z.ZodType>(
  requester: SandboxRequester,
  definition: RequestDefinition<TReq, TRes>,
  key: string,
  payload: z.input<TReq>,
  timeoutMs = DEFAULT_RPC_TIMEOUT_MS,
  watch: AttemptWatch = (attempt) => attempt,
): Promise<z.output<TRes>> {
  const once = { requestId: randomUUID(), ...payload };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await watch(callSandbox(requester, definition, key, once, timeoutMs));
    } catch (error) {
      if (!isAppError(error) || error.code !== 'TIMEOUT') throw error;
      if (attempt < ATTEMPTS_WITHOUT_ANSWER) continue;
      throw new AppError(
        'TIMEOUT',
        `the sandbox broker did not answer ${definition.op} in ${attempt} tries of ${timeoutMs} ms: whether it was done is unknown, so check before doing it again`,
        { details: { op: definition.op, requestId: once.requestId } },
      );
    }
  }
}

/** When a repeatable request gives up. */
export interface RepeatBudget {
  /** How long one attempt waits for its answer. */
  attemptMs: number;
  /** How long all attempts may take together. */
  totalMs: number;
  /** The pause before sending again when no broker serves the subject at all (one restarting). */
  pauseMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Gives up at once when aborted (the caller is stopping), whatever attempt is in flight. */
  signal?: AbortSignal;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The error a call given up by its caller's `signal` rejects with. */
function callerStopped(what: string): AppError {
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `${what} was given up: its caller is stopping (the broker may finish it; the next try finds it done)`,
    { retryable: true },
  );
}

/** One attempt's call fields and the watch that fails it once its broker goes silent. */
export interface WatchedAttempt {
  fields: { callerId: string; callId: string };
  watch: AttemptWatch;
}

/**
 * Sends a request that is safe to repeat as it is (`acquire`: the broker takes the thread's lock
 * and returns the sandbox bound to the thread, making one only when there is none) until it is
 * answered or the budget is spent. Each attempt waits `attemptMs`, so a broker killed while it held
 * the request costs one attempt instead of the whole budget (NATS never tells a requester that its
 * responder died); with `watched`, each attempt is a watched call of its own, and one whose broker
 * went silent (`broker_gone`, ~18 s after it died) is sent again at once. A TIMEOUT that came
 * before the attempt's wait was up means no broker serves at all (the only one restarting): sent
 * again after a pause, as is a broker's refusal because it is shutting down (another broker, or
 * this one restarted, answers). A refusal because the thread's lock is still held (a live broker
 * still setting the sandbox up) is tried again too; any other error is thrown at once. With
 * `budget.signal`, it gives up as soon as that aborts.
 */
export async function callSandboxRepeatable<TReq extends z.ZodObject, TRes extends z.ZodType>(
  requester: SandboxRequester,
  definition: RequestDefinition<TReq, TRes>,
  key: string,
  payload: z.input<TReq>,
  budget: RepeatBudget,
  watched?: () => WatchedAttempt,
): Promise<z.output<TRes>> {
  const now = budget.now ?? Date.now;
  const sleep = budget.sleep ?? pause;
  const deadline = now() + budget.totalMs;
  for (;;) {
    const wait = Math.min(budget.attemptMs, deadline - now());
    const started = now();
    const attempt = watched?.();
    const request = attempt ? { ...payload, ...attempt.fields } : payload;
    const what = `the sandbox broker's ${definition.op}`;
    try {
      const answer = callSandbox(requester, definition, key, request, wait);
      return await untilAborted(attempt ? attempt.watch(answer) : answer, budget.signal, () =>
        callerStopped(what),
      );
    } catch (error) {
      if (budget.signal?.aborted) throw error;
      if (isBrokerGone(error) && deadline - now() > 0) continue;
      if (!isAppError(error)) throw error;
      const stopping = isBrokerStopping(error);
      if (!stopping && !['TIMEOUT', 'LEASE_HELD'].includes(error.code)) throw error;
      const unserved = stopping || (error.code === 'TIMEOUT' && now() - started < wait * 0.9);
      if (deadline - now() <= 0) throw error;
      const rest = Math.min(budget.pauseMs ?? 2_000, Math.max(0, deadline - now()));
      if (unserved) await untilAborted(sleep(rest), budget.signal, () => callerStopped(what));
    }
  }
}
