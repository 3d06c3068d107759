import type { ColumnType } from 'kysely';
export type Generated<T> =
  T extends ColumnType<infer S, infer I, infer U>
    ? ColumnType<S, I | undefined, U>
    : ColumnType<T, T | undefined, T>;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type BusConsumer = {
  stream: string;
  durable: string;
  filter: string;
  ordered: boolean;
  config: unknown;
  ack_floor: Generated<string>;
  created_at: Generated<Timestamp>;
};
export type BusDeadLetter = {
  stream: string;
  durable: string;
  sequence: string;
  subject: string;
  deliveries: number;
  reason: string;
  payload: string;
  recorded_at: Generated<Timestamp>;
};
export type BusDelivery = {
  stream: string;
  durable: string;
  sequence: string;
  thread_id: string | null;
  state: string;
  delivery_count: number;
  visible_at: Timestamp;
  deadline_at: Timestamp | null;
  holder: string | null;
  updated_at: Generated<Timestamp>;
};
export type BusMessage = {
  sequence: Generated<string>;
  stream: string;
  subject: string;
  thread_id: string | null;
  message_id: string;
  payload: string;
  stored_at: Generated<Timestamp>;
};
export type Delivery = {
  id: string;
  source: string;
  delivery_id: string;
  semantic_key: string | null;
  thread_id: string;
  event: string;
  received_at: Generated<Timestamp>;
  payload: unknown;
};
export type InboxEntry = {
  consumer: string;
  message_id: string;
  processed_at: Generated<Timestamp>;
};
export type Lease = {
  key: string;
  holder: string;
  revision: string;
  expires_at: Timestamp;
};
export type OutboxEntry = {
  id: string;
  subject: string;
  pattern: string;
  envelope: unknown;
  created_at: Generated<Timestamp>;
  published_at: Timestamp | null;
  attempts: Generated<number>;
  last_error: string | null;
};
export type Run = {
  id: string;
  thread_id: string;
  trigger_id: string;
  status: Generated<string>;
  exit_status: string | null;
  summary: Generated<string>;
  runner: string | null;
  created_at: Generated<Timestamp>;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
};
export type RunEvent = {
  id: string;
  thread_id: string;
  run_id: string | null;
  type: string;
  stream: string;
  sequence: string;
  occurred_at: Timestamp;
  data: unknown;
};
export type Sandbox = {
  id: string;
  thread_id: string;
  provider: string;
  external_id: string;
  status: Generated<string>;
  created_at: Generated<Timestamp>;
  last_used_at: Generated<Timestamp>;
};
export type Thread = {
  id: string;
  source: string;
  title: Generated<string>;
  repository_owner: string | null;
  repository_name: string | null;
  status: Generated<string>;
  active_run_id: string | null;
  created_at: Generated<Timestamp>;
  updated_at: Generated<Timestamp>;
};
export type DB = {
  bus_consumers: BusConsumer;
  bus_dead_letters: BusDeadLetter;
  bus_deliveries: BusDelivery;
  bus_messages: BusMessage;
  deliveries: Delivery;
  inbox: InboxEntry;
  leases: Lease;
  outbox: OutboxEntry;
  run_events: RunEvent;
  runs: Run;
  sandboxes: Sandbox;
  threads: Thread;
};
