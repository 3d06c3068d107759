export {
  BusMessageRepository,
  type BusMessageRepositoryOptions,
  type NewBusMessage,
  type AppendResult,
  type BusMessageRow,
  type LogQuery,
} from './bus-message.repository.js';
export {
  BusConsumerRepository,
  type BusConsumerSpec,
  type FillOptions,
} from './bus-consumer.repository.js';
export {
  BusDeliveryRepository,
  type ClaimRequest,
  type ClaimedDelivery,
} from './bus-delivery.repository.js';
export {
  BusDeadLetterRepository,
  deadLetterId,
  selectsDeadLetter,
  type DeadLetter,
  type DeadLetterQuery,
  type DeadLetterSelection,
  type ReplayOutcome,
} from './bus-dead-letter.repository.js';
export { LeaseRepository, type LeaseRow } from './lease.repository.js';
export type { DeliveryKey } from './bus-sql.js';
