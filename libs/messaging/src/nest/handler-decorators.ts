import {
  durableName,
  type Consumable,
  type RequestDefinition,
  type ServiceName,
} from '@caravel/contracts';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import type { ConsumerOptions } from '../bus.port.js';

/** How a service consumes a message: who it is, and the consumer's options but its name. */
export type ConsumeOptions = Omit<ConsumerOptions, 'durable'> & {
  /** The consuming service: the durable is `<service>-<definition.consumerName>`. */
  readonly service: ServiceName;
};

/**
 * Makes a handler a durable consumer of a catalogue message, or of a family of them in their
 * order per thread (`@EventPattern` with its durable derived by {@link durableName}). The handler
 * receives the parsed envelope.
 */
export function ConsumeEvent(
  definition: Consumable,
  { service, ...options }: ConsumeOptions,
): MethodDecorator {
  return EventPattern<string>(definition.pattern, {
    ...options,
    durable: durableName(service, definition),
  });
}

/**
 * Makes a handler the server of a catalogue request (`@MessagePattern`). The transport parses
 * the request against the definition first: the handler receives the parsed request, and a
 * malformed one is answered `MESSAGE_MALFORMED` without reaching it.
 */
export function ServeRequest(definition: RequestDefinition): MethodDecorator {
  return MessagePattern<string>(definition.pattern);
}
