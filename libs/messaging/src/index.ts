export type * from './bus.port.js';
export type { BusTestHarness, BusHarnessFactory } from './testing/bus-harness.js';
export * from './nest/index.js';
export * from './settlement/index.js';
export * from './jetstream/index.js';
