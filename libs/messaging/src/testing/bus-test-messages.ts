import { randomUUID } from 'node:crypto';
import {
  defineMessage,
  defineMessageFamily,
  threadPartition,
  type MessageDefinition,
} from '@caravel/contracts';
import { z } from 'zod';

const probeData = z.object({
  threadId: z.uuid(),
  n: z.number().int().nonnegative(),
  note: z.string().default(''),
});

export type ProbeData = z.output<typeof probeData>;
export type ProbeDefinition = MessageDefinition<typeof probeData>;

let counter = 0;

/**
 * A test-only message with its own type, so each behaviour gets a subject (and therefore a
 * consumer filter) that no other behaviour publishes on, even within one shared namespace.
 */
export function probeMessage(kind: 'cmd' | 'evt', label: string): ProbeDefinition {
  counter += 1;
  const slug = `${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${counter}`;
  return defineMessage({
    kind,
    name: `probe.${slug}`,
    version: 1,
    description: `behaviour-suite probe: ${label}`,
    data: probeData,
    fixture: { threadId: '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e', n: 0, note: '' },
  });
}

/**
 * A test-only family `evt.probe.<label>-N.*` of the given members, each a probe message, and
 * `outsider`: a message under the family's prefix that is not a member.
 */
export function probeFamily(label: string, members: readonly string[]) {
  counter += 1;
  const prefix = `probe.${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${counter}`;
  const define = (word: string) =>
    defineMessage({
      kind: 'evt',
      name: `${prefix}.${word}`,
      version: 1,
      description: `behaviour-suite probe family ${label}: ${word}`,
      data: probeData,
      fixture: { threadId: '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e', n: 0, note: '' },
    });
  const definitions = members.map(define);
  const family = defineMessageFamily({
    kind: 'evt',
    prefix,
    description: `behaviour-suite probe family: ${label}`,
    consumerName: prefix.replace(/\./g, '-'),
    members: definitions,
  });
  return { family, members: definitions, outsider: define('outsider') };
}

/** Two fresh thread ids that land in different ordering partitions. */
export function threadsInDifferentPartitions(): [string, string] {
  const first = randomUUID();
  for (;;) {
    const second = randomUUID();
    if (threadPartition(second) !== threadPartition(first)) return [first, second];
  }
}

/** Two fresh thread ids that land in the same ordering partition. */
export function threadsInSamePartition(): [string, string] {
  const first = randomUUID();
  for (;;) {
    const second = randomUUID();
    if (threadPartition(second) === threadPartition(first)) return [first, second];
  }
}

/** A name unique to this run, for durables, subjects and lease keys. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}
