/**
 * The streams Caravel declares. Each message kind lands in exactly one stream; the messaging
 * library creates them (idempotently) at start from this table.
 */
export const STREAMS = {
  /** Inbound triggers from every source (GitHub, Slack, Linear, Jira, Confluence, synthetic). */
  TRIGGERS: { name: 'CARAVEL_TRIGGERS', subjects: ['thread.*.trigger.>'], maxAgeDays: 30 },
  /** Commands addressed to a thread's services (start, inject, interrupt, ...). */
  COMMANDS: { name: 'CARAVEL_COMMANDS', subjects: ['thread.*.cmd.>'], maxAgeDays: 30 },
  /** Everything that happened on a thread: the replay log behind the dashboard and trajectories. */
  EVENTS: { name: 'CARAVEL_EVENTS', subjects: ['thread.*.evt.>'], maxAgeDays: 365 },
  /** Platform-wide events that belong to no thread. */
  SYSTEM: { name: 'CARAVEL_SYSTEM', subjects: ['system.>'], maxAgeDays: 30 },
  /** Messages that were given up on, with the reason. */
  DEAD_LETTERS: { name: 'CARAVEL_DEAD_LETTERS', subjects: ['deadletter.>'], maxAgeDays: 90 },
} as const;

export type StreamKey = keyof typeof STREAMS;
export type StreamSpec = (typeof STREAMS)[StreamKey];

/** Message kinds and the stream each lands in. */
export const KIND_STREAM = {
  trigger: 'TRIGGERS',
  cmd: 'COMMANDS',
  evt: 'EVENTS',
  system: 'SYSTEM',
  deadletter: 'DEAD_LETTERS',
} as const satisfies Record<string, StreamKey>;

export type MessageKind = keyof typeof KIND_STREAM;

/** Kinds whose subjects carry a thread id (and a partition token for ordered consumers). */
export const THREAD_KINDS: ReadonlySet<MessageKind> = new Set<MessageKind>([
  'trigger',
  'cmd',
  'evt',
]);
