export { CaravelTransport, CARAVEL_TRANSPORT } from './caravel-transport.strategy.js';
export { CaravelClient } from './caravel.client.js';
export { CaravelContext } from './caravel.context.js';
export { MessagePublisher } from './message-publisher.js';
export { type ConsumerExtras, isConsumerExtras } from './consumer-extras.js';
export { ConsumeEvent, ServeRequest, type ConsumeOptions } from './handler-decorators.js';
