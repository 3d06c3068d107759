import { AppError } from '@caravel/errors';
import {
  CATALOGUE,
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
