export { DEFAULT_BACKOFF_MS, backoffDelay } from './backoff-schedule.js';
export {
  DEFAULT_ACK_WAIT_MS,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_DELIVER,
  DEFAULT_OUTAGE_HORIZON_MS,
  DEFAULT_OUTAGE_MAX_DELAY_MS,
  resolveConsumerOptions,
  type ResolvedConsumerOptions,
} from './consumer-defaults.js';
export {
  decideSettlement,
  describeFailure,
  isOutage,
  outageDelay,
  type DeliveryAttempt,
  type HandlerOutcome,
  type SettlementDecision,
  type SettlementPolicy,
} from './settlement-decision.js';
export { runDelivery, type DeliveryResult, type RawDelivery } from './delivery-runner.js';
export {
  OutageBreaker,
  type Admission,
  type DependencyVerdict,
  type OutageBreakerOptions,
} from './outage-breaker.js';
export { quietConsoleLogger, silentLogger, type BusLogger } from './bus-logger.js';
