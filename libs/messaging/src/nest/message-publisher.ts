import type { EnvelopeOptions, MessageDefinition } from '@caravel/contracts';
import type { z } from 'zod';
import type { Bus, PublishAck } from '../bus.port.js';
import { tracedEnvelopeOptions } from '../trace/index.js';

/**
 * Typed publishing for services: build a message from its definition and publish it. Inside a
 * handler the message takes the handler's correlation id, its message as the cause, and a child
 * of its `traceparent` (outside one, a new trace), unless `options` say otherwise.
 */
export class MessagePublisher {
  constructor(
    private readonly bus: Bus,
    private readonly source: string,
  ) {}

  async publish<S extends z.ZodObject>(
    definition: MessageDefinition<S>,
    data: z.input<S>,
    options: Partial<EnvelopeOptions> = {},
  ): Promise<PublishAck> {
    const envelope = definition.create(
      data,
      tracedEnvelopeOptions({ source: this.source, ...options }),
    );
    return this.bus.publish(definition, envelope);
  }
}
