export { connectJetStreamBus, type JetStreamBusOptions } from './connect-jetstream-bus.js';
export { JetStreamBus } from './jetstream-bus.js';
export { Namespace } from './namespace.js';
