// Test support for the bus: `@caravel/messaging/testing`, for specs, end-to-end tests and the
// benches only (production code may not import it: eslint.config.js). A harness per adapter for
// the shared behaviour suite, and the clean-up of a JetStream namespace a test made.
export type { BusTestHarness, BusHarnessFactory } from './bus-harness.js';
export {
  embeddedBusHarness,
  type EmbeddedHarnessTarget,
} from '../embedded/embedded-bus.harness.js';
export {
  deleteJetStreamNamespace,
  jetStreamHarnessFactory,
} from '../jetstream/jetstream-bus.harness.js';
