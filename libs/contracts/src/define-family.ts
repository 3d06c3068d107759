import { AppError } from '@caravel/errors';
import { z } from 'zod';
import type { Envelope } from './envelope.js';
import { partitionToken } from './partition.js';
import type { MessageKind, StreamSpec } from './streams.js';

/**
 * What a durable consumer takes: one message ({@link MessageDefinition}), or a family of them
 * ({@link defineMessageFamily}) taken through one durable, so their order per thread is kept.
 */
export interface Consumable<TData = unknown> {
  /** The message's type, or the family's (`evt.run.*`). */
  readonly type: string;
  readonly description: string;
  readonly threadScoped: boolean;
  readonly stream: StreamSpec;
  /** Stable handler pattern (what `@EventPattern` takes): `cmd.run.start.v1`, `evt.run.*`. */
  readonly pattern: string;
  /** A consumer's name after its service: `<service>-<consumerName>` is its durable. */
  readonly consumerName: string;
  /** A subject filter; narrowed to one thread or one partition when asked. */
  filter(scope?: { threadId?: string; partition?: number }): string;
  /** Validates an unknown value as one of these messages; throws `MESSAGE_MALFORMED` when not. */
  parse(raw: unknown): Envelope<TData>;
}

/** What a family is made of: messages of one kind whose names are `<prefix>.<one word>`. */
interface Member {
  readonly type: string;
  readonly version: number;
  readonly kind: MessageKind;
  readonly threadScoped: boolean;
  readonly stream: StreamSpec;
  parse(raw: unknown): Envelope<unknown>;
  readonly dataSchema: z.ZodObject;
}

/** Which member a message says it is (its own schema then checks the rest). */
const memberKey = z.object({ type: z.string(), version: z.number() });

type MemberData<M> = M extends { dataSchema: infer S extends z.ZodObject } ? z.output<S> : never;

/** Every message of a kind under one name prefix, consumed together in their order per thread. */
export interface MessageFamily<
  TMembers extends readonly Member[] = readonly Member[],
> extends Consumable<MemberData<TMembers[number]>> {
  readonly members: TMembers;
}

interface FamilyInput<TMembers extends readonly Member[]> {
  kind: MessageKind;
  /** The name prefix every member shares, e.g. `run` for `evt.run.started`, `evt.run.step`…. */
  prefix: string;
  description: string;
  /** What the family's durables are called after their service (`<service>-<consumerName>`). */
  consumerName: string;
  /** Every message of the kind under the prefix (the catalogue's contract test checks it). */
  members: TMembers;
}

/**
 * Defines a family: messages of one kind and stream whose names are `<prefix>.<word>`, which one
 * durable per service takes in publish order per thread. Consuming each member through its own
 * durable keeps each member's order, never theirs together: a run's end could be handled before
 * its start. The family's filter matches every version of every such name, so a message under the
 * prefix that is not a member (or a member's version not listed) fails `parse` as malformed and
 * is dead-lettered where an operator sees it.
 */
export function defineMessageFamily<const TMembers extends readonly Member[]>(
  input: FamilyInput<TMembers>,
): MessageFamily<TMembers> {
  const [first] = input.members;
  if (first === undefined) throw new Error(`family ${input.kind}.${input.prefix} has no members`);
  const prefix = `${input.kind}.${input.prefix}.`.replace(/\./g, '\\.');
  const namePattern = new RegExp(`^${prefix}[a-z][a-z0-9_-]*$`);
  // One kind means one stream and one scope (see KIND_STREAM): the members share the first's.
  for (const member of input.members) {
    if (!namePattern.test(member.type)) {
      throw new Error(`${member.type} is not ${input.kind}.${input.prefix}.<word>`);
    }
  }
  const type = `${input.kind}.${input.prefix}.*`;
  const byKey = new Map(input.members.map((m) => [`${m.type}@${m.version}`, m]));
  return {
    type,
    description: input.description,
    threadScoped: first.threadScoped,
    stream: first.stream,
    pattern: type,
    consumerName: input.consumerName,
    members: input.members,
    filter(scope = {}) {
      if (!first.threadScoped) return `${type}.*`;
      const thread = scope.threadId ?? '*';
      const partition = scope.partition === undefined ? '*' : partitionToken(scope.partition);
      return `thread.${thread}.${type}.*.${partition}`;
    },
    parse(raw) {
      const header = memberKey.safeParse(raw);
      const member = header.success
        ? byKey.get(`${header.data.type}@${header.data.version}`)
        : undefined;
      if (member === undefined) {
        const named = header.success ? `${header.data.type} v${header.data.version}` : 'a message';
        throw new AppError('MESSAGE_MALFORMED', `${named} is not a member of ${type}`, {
          details: { family: type, members: [...byKey.keys()] },
        });
      }
      return member.parse(raw) as Envelope<MemberData<TMembers[number]>>;
    },
  };
}
