import { AppError } from '@caravel/errors';
import { z } from 'zod';
import {
  CATALOGUE,
  defineMessage,
  defineMessageFamily,
  FAMILIES,
  RunEvents,
  RunFinishedV1,
  RunStartedV1,
  STREAMS,
  StartRunV1,
  TriggerReceivedV1,
  threadPartition,
  type MessageDefinition,
  THREAD_PARTITIONS,
} from './index.js';

function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i += 1) {
    if (f[i] === '>') return s.length > i;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

describe('message catalogue', () => {
  it.each(CATALOGUE.map((d) => [d.pattern, d] as const))(
    'parses the %s fixture',
    (_p, definition) => {
      const fixture = definition.fixture();
      expect(definition.parse(JSON.parse(JSON.stringify(fixture)))).toEqual(fixture);
    },
  );

  it.each(CATALOGUE.map((d) => [d.pattern, d as MessageDefinition] as const))(
    'publishes %s on a subject its stream and its own filter capture',
    (_p, definition) => {
      const subject = definition.subjectFor(definition.fixture().data);
      expect(definition.stream.subjects.some((f) => subjectMatches(f, subject))).toBe(true);
      expect(subjectMatches(definition.filter(), subject)).toBe(true);
    },
  );

  it('defines every type and version once', () => {
    const patterns = CATALOGUE.map((d) => d.pattern);
    expect(new Set(patterns).size).toBe(patterns.length);
  });

  it('puts the thread id and its partition in thread-scoped subjects', () => {
    const data = TriggerReceivedV1.fixture().data;
    const subject = TriggerReceivedV1.subjectFor(data);
    const partition = threadPartition(data.threadId);
    expect(subject).toBe(
      `thread.${data.threadId}.trigger.received.v1.p${String(partition).padStart(2, '0')}`,
    );
    expect(subjectMatches(TriggerReceivedV1.filter({ threadId: data.threadId }), subject)).toBe(
      true,
    );
    expect(subjectMatches(TriggerReceivedV1.filter({ partition }), subject)).toBe(true);
    expect(
      subjectMatches(
        TriggerReceivedV1.filter({ partition: (partition + 1) % THREAD_PARTITIONS }),
        subject,
      ),
    ).toBe(false);
  });

  it('keeps stream subjects disjoint', () => {
    const all = Object.values(STREAMS).flatMap((s) => s.subjects);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('message families', () => {
  const catalogue: readonly MessageDefinition[] = CATALOGUE;
  const underPrefix = (family: (typeof FAMILIES)[number]) =>
    catalogue.filter((d) => d.type.startsWith(family.type.slice(0, -1)));

  it.each(FAMILIES.map((f) => [f.pattern, f] as const))(
    'holds every catalogue message under %s, and its filters capture exactly those',
    (_p, family) => {
      expect(new Set<unknown>(family.members)).toEqual(new Set(underPrefix(family)));
      for (const definition of catalogue) {
        const data = definition.fixture().data;
        const subject = definition.subjectFor(data);
        const member = (family.members as readonly unknown[]).includes(definition);
        expect([definition.type, subjectMatches(family.filter(), subject)]).toEqual([
          definition.type,
          member,
        ]);
        const threadId = (data as { threadId?: string }).threadId;
        if (!member || threadId === undefined) continue;
        const partition = threadPartition(threadId);
        expect(subjectMatches(family.filter({ partition }), subject)).toBe(true);
        expect(subjectMatches(family.filter({ threadId }), subject)).toBe(true);
        const other = (partition + 1) % THREAD_PARTITIONS;
        expect(subjectMatches(family.filter({ partition: other }), subject)).toBe(false);
      }
    },
  );

  it.each(FAMILIES.map((f) => [f.pattern, f] as const))(
    'parses the fixture of each member of %s as that member',
    (_p, family) => {
      for (const member of family.members) {
        const fixture = member.fixture();
        expect(family.parse(JSON.parse(JSON.stringify(fixture)))).toEqual(fixture);
      }
    },
  );

  it('parses each member as that member, and refuses anything else under its prefix', () => {
    const started = RunStartedV1.fixture();
    const finished = RunFinishedV1.fixture();
    expect(RunEvents.parse(JSON.parse(JSON.stringify(started)))).toEqual(started);
    expect(RunEvents.parse(JSON.parse(JSON.stringify(finished)))).toEqual(finished);
    expect(() => RunEvents.parse({ ...started, type: 'evt.run.paused' })).toThrow(
      'evt.run.paused v1 is not a member of evt.run.*',
    );
    expect(() => RunEvents.parse({ ...started, version: 2 })).toThrow(/evt\.run\.started v2/);
    expect(() => RunEvents.parse({ ...started, data: { runId: 7 } })).toThrow(/data\.runId/);
    expect(() => RunEvents.parse('hello')).toThrow(/a message is not a member/);
  });

  it('refuses members with a longer name or of another kind, and a family of none', () => {
    const make = (kind: 'evt' | 'cmd', name: string) =>
      defineMessage({
        kind,
        name,
        version: 1,
        description: 'test',
        data: z.object({ threadId: z.uuid() }),
        fixture: { threadId: '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e' },
      });
    const family = (members: readonly ReturnType<typeof make>[]) =>
      defineMessageFamily({
        kind: 'evt',
        prefix: 'run',
        description: 't',
        consumerName: 't',
        members,
      });
    expect(() => family([make('evt', 'run.step.extra')])).toThrow(/not evt\.run\.<word>/);
    expect(() => family([make('cmd', 'run.other')])).toThrow(/not evt\.run\.<word>/);
    expect(() => family([make('evt', 'run.a'), make('cmd', 'run.b')])).toThrow(/not evt/);
    expect(() => family([])).toThrow(/has no members/);
    expect(family([make('evt', 'run.a')]).filter({ partition: 3 })).toBe(
      'thread.*.evt.run.*.*.p03',
    );
  });
});

describe('malformed envelopes', () => {
  it('names every bad field in one clear error', () => {
    const good = StartRunV1.fixture();
    const bad = { ...good, id: 'not-a-uuid', data: { ...good.data, runId: 42 } };
    let caught: unknown;
    try {
      StartRunV1.parse(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    const error = caught as AppError;
    expect(error.code).toBe('MESSAGE_MALFORMED');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('cmd.run.start v1 envelope is malformed');
    expect(error.message).toContain('id:');
    expect(error.message).toContain('data.runId:');
  });

  it('rejects an envelope of another type or version', () => {
    const trigger = TriggerReceivedV1.fixture();
    expect(() => StartRunV1.parse(trigger)).toThrow(/type/);
    expect(() => TriggerReceivedV1.parse({ ...trigger, version: 2 })).toThrow(/version/);
  });

  it('rejects non-objects and missing headers', () => {
    expect(() => StartRunV1.parse('hello')).toThrow(AppError);
    const { occurredAt: _dropped, ...rest } = StartRunV1.fixture();
    expect(() => StartRunV1.parse(rest)).toThrow(/occurredAt/);
  });

  it('refuses to build a message whose data does not fit its schema', () => {
    expect(() =>
      StartRunV1.create({ ...StartRunV1.fixture().data, threadId: 'x' }, { source: 't' }),
    ).toThrow(/threadId/);
  });

  it('partitions deterministically with FNV-1a', () => {
    const id = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';
    expect(threadPartition(id)).toBe(threadPartition(id));
    const seen = new Set(Array.from({ length: 400 }, (_, i) => threadPartition(`t-${i}`)));
    expect(seen.size).toBe(THREAD_PARTITIONS);
  });
});

describe('request definitions', () => {
  it('derives thread-scoped subjects and a wildcard pattern', async () => {
    const { SandboxPing } = await import('./index.js');
    const id = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';
    expect(SandboxPing.subjectFor(id)).toBe(`sandbox.${id}.ping`);
    expect(SandboxPing.pattern).toBe('sandbox.*.ping');
    expect(subjectMatches(SandboxPing.pattern, SandboxPing.subjectFor(id))).toBe(true);
    expect(() => SandboxPing.subjectFor('a.b')).toThrow();
    expect(() => SandboxPing.parseResponse({ threadId: id, alive: 'yes' })).toThrow(/alive/);
  });
});
