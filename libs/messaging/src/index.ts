export type * from './bus.port.js';
export * from './nest/index.js';
export * from './settlement/index.js';
export * from './trace/index.js';
export * from './jetstream/index.js';
export { createEmbeddedBus, EmbeddedBus } from './embedded/embedded-bus.js';
export type { EmbeddedBusOptions } from './embedded/embedded-bus.options.js';
