import { AppError } from '@caravel/errors';
import { z } from 'zod';
import { compiledSchema } from './compiled-schema.js';
import {
  buildHeader,
  envelopeHeaderSchema,
  type Envelope,
  type EnvelopeOptions,
} from './envelope.js';
import type { Consumable } from './define-family.js';
import { partitionToken, threadPartition } from './partition.js';
import { KIND_STREAM, STREAMS, THREAD_KINDS, type MessageKind } from './streams.js';

const threadIdSchema = z.uuid();

interface DefinitionInput<TSchema extends z.ZodObject> {
  /** Dotted name after the kind, e.g. `run.start` for the `cmd` kind. */
  name: string;
  kind: MessageKind;
  version: number;
  /** Payload schema. Thread-scoped kinds must carry `threadId` (a UUID). */
  data: TSchema;
  /** A valid example payload: the contract tests parse it and services use it in tests. */
  fixture: z.input<TSchema>;
  description: string;
  /**
   * What a durable consumer of this message is called after its service, `<service>-<consumerName>`
   * (see {@link durableName}). By default the name with `.` and `_` as `-` (`run.step` ->
   * `run-step`); set it only to keep a consumer name that deployments already hold.
   */
  consumerName?: string;
}

/** Everything derived from one message definition. */
export interface MessageDefinition<TSchema extends z.ZodObject = z.ZodObject> extends Consumable<
  z.output<TSchema>
> {
  readonly version: number;
  readonly kind: MessageKind;
  readonly dataSchema: TSchema;
  readonly envelopeSchema: z.ZodType<Envelope<z.output<TSchema>>>;
  /** The concrete subject one message is published on. */
  subjectFor(data: z.output<TSchema>): string;
  create(data: z.input<TSchema>, options: EnvelopeOptions): Envelope<z.output<TSchema>>;
  fixture(options?: Partial<EnvelopeOptions>): Envelope<z.output<TSchema>>;
}

/** The payload of a message, or of any member of a family. */
export type DataOf<D> =
  D extends MessageDefinition<infer S> ? z.output<S> : D extends Consumable<infer T> ? T : never;
export type EnvelopeOf<D> = Envelope<DataOf<D>>;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Parses with a schema (compiled on first use: {@link compiledSchema}), turning zod's error into a
 * coded one that lists every bad field.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  what: string,
): z.output<S> {
  const result = compiledSchema(schema).safeParse(raw);
  if (result.success) return result.data;
  throw new AppError('MESSAGE_MALFORMED', `${what} is malformed: ${describeIssues(result.error)}`, {
    details: {
      issues: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    },
  });
}

/** Defines a message once; its subject, stream, envelope schema and fixture all derive from here. */
export function defineMessage<TSchema extends z.ZodObject>(
  input: DefinitionInput<TSchema>,
): MessageDefinition<TSchema> {
  const type = `${input.kind}.${input.name}`;
  const threadScoped = THREAD_KINDS.has(input.kind);
  const stream = STREAMS[KIND_STREAM[input.kind]];
  const suffix = `${type}.v${input.version}`;
  const envelopeSchema = envelopeHeaderSchema.extend({
    type: z.literal(type),
    version: z.literal(input.version),
    data: input.data,
  }) as unknown as z.ZodType<Envelope<z.output<TSchema>>>;

  if (threadScoped && !('threadId' in input.data.shape)) {
    throw new Error(`message ${type} is thread-scoped and its data must have threadId`);
  }

  const threadIdOf = (data: z.output<TSchema>): string =>
    compiledSchema(threadIdSchema).parse((data as { threadId?: unknown }).threadId);

  const definition: MessageDefinition<TSchema> = {
    type,
    version: input.version,
    kind: input.kind,
    description: input.description,
    threadScoped,
    stream,
    dataSchema: input.data,
    envelopeSchema,
    pattern: suffix,
    consumerName: input.consumerName ?? input.name.replace(/[._]/g, '-'),
    subjectFor(data) {
      if (!threadScoped) return suffix;
      const threadId = threadIdOf(data);
      return `thread.${threadId}.${suffix}.${partitionToken(threadPartition(threadId))}`;
    },
    filter(scope = {}) {
      if (!threadScoped) return suffix;
      const thread = scope.threadId ?? '*';
      const partition = scope.partition === undefined ? '*' : partitionToken(scope.partition);
      return `thread.${thread}.${suffix}.${partition}`;
    },
    create(data, options) {
      const parsed = parseOrThrow(input.data, data, `${type} data`);
      return { ...buildHeader(type, input.version, options), data: parsed };
    },
    parse(raw) {
      return parseOrThrow(envelopeSchema, raw, `${type} v${input.version} envelope`);
    },
    fixture(options = {}) {
      return definition.create(input.fixture, { source: 'fixture', ...options });
    },
  };
  return definition;
}
