export { DEFAULT_BACKOFF_MS, backoffDelay } from './backoff-schedule.js';
export {
  DEFAULT_ACK_WAIT_MS,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_DELIVER,
  resolveConsumerOptions,
  type ResolvedConsumerOptions,
} from './consumer-defaults.js';
export {
  decideSettlement,
  describeFailure,
  type HandlerOutcome,
  type SettlementDecision,
} from './settlement-decision.js';
export { runDelivery, type RawDelivery } from './delivery-runner.js';
export { quietConsoleLogger, silentLogger, type BusLogger } from './bus-logger.js';
