import type { Consumable, RequestDefinition } from '@caravel/contracts';
import { AppError, untilAborted } from '@caravel/errors';
import { runWithLogFields, threadIdOfSubject } from '@caravel/logging';
import { Logger } from '@nestjs/common';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { lastValueFrom, isObservable } from 'rxjs';
import type { Bus, Delivery, Subscription } from '../bus.port.js';
import { inSpan, runInTrace, SpanKind, traceOfEnvelope, traceOfHeaders } from '../trace/index.js';
import { CaravelContext } from './caravel.context.js';
import { isConsumerExtras } from './consumer-extras.js';

/** How long a consumer may take to drain at shutdown before a warning names it. */
export const SLOW_DRAIN_WARNING_MS = 5_000;

/** A consumer or request server, with what a slow drain names it by. */
interface Named {
  label: string;
  subscription: Subscription;
  /** Request servers drain last: a consumer's handler that is stopping may still ask them. */
  serves: boolean;
}

/** Symbol identifying the Caravel transport in Nest's microservice registry. */
export const CARAVEL_TRANSPORT = Symbol('caravel');

/**
 * A NestJS custom transport over the Caravel `Bus` (JetStream or embedded). `@EventPattern`
 * handlers (`@ConsumeEvent`) become durable consumers of the matching catalogue message and get
 * the parsed envelope; `@MessagePattern` handlers (`@ServeRequest`) serve request/reply on their
 * subject and get the request parsed against its catalogue definition. Each handler runs under
 * its message's trace ({@link runInTrace}: correlation id and W3C `traceparent`, from the envelope
 * or the request's headers), so what it publishes or requests carries them on, and every line it
 * logs carries the correlation id, thread, subject and message type ({@link runWithLogFields}).
 * Handlers just
 * return or throw: the bus settles (ack / nak with backoff / term + dead letter) from the outcome
 * and the error's `retryable` flag.
 */
export class CaravelTransport extends Server implements CustomTransportStrategy {
  override readonly transportId = CARAVEL_TRANSPORT;
  /** Handler failures reach the bus, which settles (nak/term) and logs them. */
  override readonly propagatesEventHandlerErrors = true;
  private readonly definitions: Map<string, Consumable>;
  private readonly requests: Map<string, RequestDefinition>;
  private readonly subscriptions: Named[] = [];
  /** Aborted when the request servers drain: what they still run is answered at once. */
  private readonly serversStopping = new AbortController();
  /** The requests being served: a drain waits for their work to end after answering them. */
  private readonly serving = new Set<Promise<unknown>>();
  private readonly log = new Logger('CaravelTransport');

  constructor(
    private readonly bus: Bus,
    definitions: readonly Consumable[],
    requests: readonly RequestDefinition[] = [],
  ) {
    super();
    this.definitions = new Map(definitions.map((d) => [d.pattern, d]));
    this.requests = new Map(requests.map((d) => [d.pattern, d]));
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  /**
   * Drains every consumer, then every request server: a request still running then is answered
   * at once with {@link shuttingDown}, so no requester waits out its timeout and no drain waits for
   * a long request (a clone), and its handler's `stopping` aborts: the close then waits for its
   * work only until that work stops (the chat agent's model call is aborted). One still draining
   * after {@link SLOW_DRAIN_WARNING_MS} is named in a warning (a handler that does not end holds
   * the process past its shutdown grace, which otherwise exits 1 without saying on what).
   */
  async close(): Promise<void> {
    await this.closeConsumers();
    this.serversStopping.abort();
    await this.drainAll(this.subscriptions.splice(0));
    // Answered already; their work ends with what the services' shutdown stopped (a clone
    // killed releases its thread's lock) before the bus and the database close.
    await Promise.allSettled([...this.serving]);
  }

  /**
   * The first step of a shutdown: drains the consumers only, aborting their handlers'
   * `stopping`, while the request servers still answer (a stopping handler may still ask this
   * process's services: the embedded host runs the sandbox broker beside the runner).
   */
  async closeConsumers(): Promise<void> {
    const consumers = this.subscriptions.filter((named) => !named.serves);
    this.subscriptions.splice(
      0,
      this.subscriptions.length,
      ...this.subscriptions.filter((named) => named.serves),
    );
    await this.drainAll(consumers);
  }

  private async drainAll(subscriptions: readonly Named[]): Promise<void> {
    await Promise.all(
      subscriptions.map(async ({ label, subscription }) => {
        const slow = setTimeout(() => {
          this.log.warn(`still draining ${label}: a handler has not ended`);
        }, SLOW_DRAIN_WARNING_MS);
        slow.unref();
        try {
          await subscription.drain();
        } finally {
          clearTimeout(slow);
        }
      }),
    );
  }

  on(): never {
    throw new Error('CaravelTransport does not expose transport events');
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  private async start(): Promise<void> {
    for (const [pattern, head] of this.messageHandlers) {
      if (!head.isEventHandler) {
        const subscription = await this.serveRequest(pattern, head);
        this.subscriptions.push({ label: `requests on ${pattern}`, subscription, serves: true });
        continue;
      }
      // Nest chains event handlers of one pattern; each gets its own durable consumer here, so
      // the chain is cut and every handler is settled on its own.
      for (const handler of unchain(head)) {
        this.subscriptions.push(await this.subscribeEvent(pattern, handler));
      }
    }
  }

  private async subscribeEvent(pattern: string, handler: MessageHandler): Promise<Named> {
    const definition = this.definitions.get(pattern);
    if (!definition) {
      throw new Error(`@EventPattern('${pattern}') names no message in the catalogue`);
    }
    const extras: unknown = handler.extras;
    if (!isConsumerExtras(extras)) {
      throw new Error(`@EventPattern('${pattern}') needs extras with a durable consumer name`);
    }
    this.log.log(`consuming ${pattern} as ${extras.durable}${extras.ordered ? ' (ordered)' : ''}`);
    const subscription = await this.bus.consume(definition, extras, (delivery: Delivery) => {
      const trace = traceOfEnvelope(delivery.envelope);
      const context = new CaravelContext([delivery, delivery.subject, trace]);
      const fields = {
        correlationId: trace.correlationId,
        threadId: threadIdOfSubject(delivery.subject),
        subject: delivery.subject,
        messageType: delivery.envelope.type,
      };
      const span = {
        name: `process ${delivery.envelope.type}`,
        kind: SpanKind.CONSUMER,
        attributes: spanAttributes(fields, extras.durable),
      };
      return runWithLogFields(fields, () =>
        inSpan(span, trace.traceparent, (traceparent) =>
          runInTrace({ ...trace, traceparent }, async () => {
            await settle(await handler(delivery.envelope, context));
          }),
        ),
      );
    });
    return { label: `consumer ${extras.durable}`, subscription, serves: false };
  }

  private async serveRequest(pattern: string, handler: MessageHandler): Promise<Subscription> {
    const definition = this.requests.get(pattern);
    if (!definition) {
      throw new Error(`@MessagePattern('${pattern}') names no request in the catalogue`);
    }
    this.log.log(`serving requests on ${pattern}`);
    // One queue group per pattern: each request is handled by one replica of the service, as a
    // durable hands each message to one. Without it every replica ran every request (two sandbox
    // brokers each ran a command, a commit and a push in the same workspace).
    const queue = `${definition.service}-${definition.op}`;
    return this.bus.serve(
      pattern,
      (raw, subject, headers) => {
        const trace = traceOfHeaders(headers);
        const fields = {
          correlationId: trace.correlationId,
          threadId: threadIdOfSubject(subject),
          subject,
        };
        const span = {
          name: `serve ${pattern}`,
          kind: SpanKind.SERVER,
          attributes: spanAttributes(fields, null),
        };
        return runWithLogFields(fields, () =>
          inSpan(span, trace.traceparent, (traceparent) =>
            runInTrace({ ...trace, traceparent }, async () => {
              // A malformed request throws MESSAGE_MALFORMED here: the requester gets it as the reply.
              const request = definition.parseRequest(raw);
              const context = new CaravelContext([
                null,
                subject,
                { ...trace, traceparent },
                this.serversStopping.signal,
              ]);
              const work = (async () => settle(await handler(request, context)))();
              this.serving.add(work);
              void work.catch(() => undefined).finally(() => this.serving.delete(work));
              return untilAborted(work, this.serversStopping.signal, () =>
                shuttingDown(definition.service, subject),
              );
            }),
          ),
        );
      },
      { queue },
    );
  }
}

/** A handler span's attributes: the bus, the subject, the thread and the correlation. */
function spanAttributes(
  fields: { correlationId: string; threadId?: string | undefined; subject: string },
  durable: string | null,
): Record<string, string> {
  return {
    'messaging.system': 'caravel',
    'messaging.destination.name': fields.subject,
    'caravel.correlation_id': fields.correlationId,
    ...(fields.threadId ? { 'caravel.thread_id': fields.threadId } : {}),
    ...(durable ? { 'messaging.consumer.group.name': durable } : {}),
  };
}

/**
 * What a request still running when its server drains is answered: DEPENDENCY_UNAVAILABLE,
 * retryable, `reason: shutting_down` (the reason crosses the bus), so the requester asks again
 * (another replica, or this service once it is back, answers) instead of waiting out a timeout.
 */
export function shuttingDown(service: string, subject: string): AppError {
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `${service} is shutting down: the request on ${subject} was not answered; ask again (another replica, or this one once restarted, answers)`,
    { retryable: true, details: { reason: SHUTTING_DOWN } },
  );
}

/** The `details.reason` of a refusal or an unanswered request because a service shuts down. */
export const SHUTTING_DOWN = 'shutting_down';

function unchain(head: MessageHandler): MessageHandler[] {
  const handlers: MessageHandler[] = [];
  let current: MessageHandler | undefined = head;
  while (current) {
    const next: MessageHandler | undefined = current.next as MessageHandler | undefined;
    current.next = undefined;
    handlers.push(current);
    current = next;
  }
  return handlers;
}

/** Resolves what a Nest handler returned (a value, a promise or an observable) to its last value. */
async function settle(result: unknown): Promise<unknown> {
  if (isObservable(result)) {
    return lastValueFrom(result, { defaultValue: undefined });
  }
  return result;
}
