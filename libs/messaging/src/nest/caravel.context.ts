import { BaseRpcContext } from '@nestjs/microservices';
import type { Delivery } from '../bus.port.js';
import type { MessageTrace } from '../trace/index.js';

const NEVER = new AbortController().signal;

/** What a Caravel handler can ask about the message it is handling (`@Ctx() ctx: CaravelContext`). */
export class CaravelContext extends BaseRpcContext<
  [Delivery | null, string, MessageTrace, AbortSignal?]
> {
  /** The delivery being handled; null for request/reply handlers. */
  get delivery(): Delivery | null {
    return this.getArgByIndex(0) as Delivery | null;
  }

  get subject(): string {
    return this.getArgByIndex(1) as string;
  }

  /** The message's correlation id and W3C `traceparent` (also `currentTrace()` while it runs). */
  get trace(): MessageTrace {
    return this.getArgByIndex(2) as MessageTrace;
  }

  /**
   * Aborted when this replica stops: a consumer's when it begins to drain (see
   * `Delivery.stopping`), a request server's when it drains (the request was answered
   * `shutting_down` then, so whatever its work still does is for nobody: stop it).
   */
  get stopping(): AbortSignal {
    return this.delivery?.stopping ?? (this.getArgByIndex(3) as AbortSignal | undefined) ?? NEVER;
  }

  /** Keeps a long handler's delivery from being redelivered (no-op for requests). */
  async working(): Promise<void> {
    await this.delivery?.working();
  }
}
