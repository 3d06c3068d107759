import { z } from 'zod';
import { CATALOGUE, compiledSchema, type MessageDefinition } from './index.js';

/** What a parse gives, comparable across parsers: the value with its key order, or the issues. */
function outcome(result: z.ZodSafeParseResult<unknown>) {
  return result.success
    ? { success: true, json: JSON.stringify(result.data), data: result.data }
    : { success: false, issues: result.error.issues };
}

/** The fixture's envelope, and one variant for each data field given a value of another type. */
function envelopesOf(definition: MessageDefinition): unknown[] {
  const envelope = JSON.parse(JSON.stringify(definition.fixture())) as { data: object };
  const variants = Object.keys(envelope.data).flatMap((key) =>
    [12345, 'not-it', null, { unexpected: true }].map((wrong) => ({
      ...envelope,
      data: { ...envelope.data, [key]: wrong },
    })),
  );
  return [envelope, { ...envelope, data: {} }, { ...envelope, id: 'not-a-uuid' }, ...variants];
}

describe('compiledSchema', () => {
  it('generates a schema once and keeps it', () => {
    const schema = z.object({ name: z.string().min(1) });
    const compiled = compiledSchema(schema);
    expect(compiled).not.toBe(schema);
    expect(compiledSchema(schema)).toBe(compiled);
  });

  it.each(CATALOGUE.map((d) => [d.pattern, d as MessageDefinition] as const))(
    'parses %s envelopes, valid and not, as the runtime parser does',
    (_pattern, definition) => {
      const compiled = compiledSchema(definition.envelopeSchema);
      for (const envelope of envelopesOf(definition)) {
        expect(outcome(compiled.safeParse(envelope))).toEqual(
          outcome(definition.envelopeSchema.safeParse(envelope)),
        );
      }
    },
  );

  it('fills defaults and strips unknown keys as the runtime parser does', () => {
    const schema = z.object({
      kind: z.enum(['message', 'command']).default('message'),
      options: z.object({ model: z.string().min(1).optional() }).default({}),
      text: z.string(),
    });
    const input = { text: 'hi', extra: 1 };
    expect(outcome(compiledSchema(schema).safeParse(input))).toEqual(
      outcome(schema.safeParse(input)),
    );
    expect(compiledSchema(schema).parse(input)).toEqual({
      kind: 'message',
      options: {},
      text: 'hi',
    });
  });
});
