import { STREAMS, StartRunV1, THREAD_PARTITIONS } from '@caravel/contracts';
import { resolveConsumerOptions } from '../settlement/index.js';
import { planDurables } from './consumer-setup.js';
import { leaseKvKey } from './kv-lease-store.js';
import { Namespace } from './namespace.js';
import { replayFilter } from './replay-reader.js';

const threadId = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';

describe('namespace', () => {
  const ns = new Namespace('t1a2b');

  it('prefixes streams, subjects, durables and the KV buckets', () => {
    expect(ns.streamName(STREAMS.COMMANDS)).toBe('t1a2b_CARAVEL_COMMANDS');
    expect(ns.streamSubjects(STREAMS.COMMANDS)).toEqual(['t1a2b.thread.*.cmd.>']);
    expect(ns.consumerName('agent-runner')).toBe('t1a2b_agent-runner');
    expect(ns.partitionConsumerName('agent-runner', 7)).toBe('t1a2b_agent-runner-p07');
    expect(ns.leaseBucket()).toBe('t1a2b_caravel_leases');
    expect(ns.parkingBucket()).toBe('t1a2b_caravel_parked');
    expect(new Namespace(undefined).parkingBucket()).toBe('caravel_parked');
    expect(ns.replayedBucket()).toBe('t1a2b_caravel_replayed');
    expect(new Namespace(undefined).replayedBucket()).toBe('caravel_replayed');
  });

  it('maps server subjects back to logical ones', () => {
    expect(ns.logicalSubject(ns.subject('sandbox.x.exec'))).toBe('sandbox.x.exec');
    expect(ns.logicalSubject('other.subject')).toBe('other.subject');
  });

  it('uses declared names when there is no namespace', () => {
    const none = new Namespace(undefined);
    expect(none.streamName(STREAMS.EVENTS)).toBe('CARAVEL_EVENTS');
    expect(none.subject('system.x')).toBe('system.x');
    expect(none.logicalSubject('system.x')).toBe('system.x');
  });

  it('refuses a prefix that would break NATS names', () => {
    expect(() => new Namespace('a.b')).toThrow(/namespace/);
  });
});

describe('durable plan', () => {
  const ns = new Namespace('t1');

  it('uses one durable on the definition filter for a shared consumer', () => {
    const plans = planDurables(
      StartRunV1,
      resolveConsumerOptions({ durable: 'runner', concurrency: 4 }),
      ns,
    );
    expect(plans).toHaveLength(1);
    expect(plans[0]!.config.filter_subject).toBe(`t1.${StartRunV1.filter()}`);
  });

  it('uses one single-in-flight durable per partition for an ordered consumer', () => {
    const plans = planDurables(
      StartRunV1,
      resolveConsumerOptions({ durable: 'runner', ordered: true }),
      ns,
    );
    expect(plans).toHaveLength(THREAD_PARTITIONS);
    expect(plans[3]!.name).toBe('t1_runner-p03');
    expect(plans[3]!.config.filter_subject).toBe(`t1.${StartRunV1.filter({ partition: 3 })}`);
    expect(plans.every((p) => p.config.max_ack_pending === 1)).toBe(true);
  });
});

describe('replay filter', () => {
  it("narrows a thread to the stream's own subject", () => {
    expect(replayFilter(STREAMS.EVENTS, { threadId })).toBe(`thread.${threadId}.evt.>`);
    expect(replayFilter(STREAMS.EVENTS, {})).toBeUndefined();
    expect(replayFilter(STREAMS.EVENTS, { filter: 'thread.*.evt.run.step.>' })).toBe(
      'thread.*.evt.run.step.>',
    );
  });

  it('refuses a thread filter on a stream without thread subjects', () => {
    expect(() => replayFilter(STREAMS.SYSTEM, { threadId })).toThrow(/no thread-scoped subjects/);
  });
});

describe('lease keys', () => {
  it('encodes any key into characters NATS KV accepts', () => {
    const key = leaseKvKey(`thread:${threadId}`);
    expect(key).toMatch(/^[-/_=.a-zA-Z0-9]+$/);
    expect(Buffer.from(key, 'base64url').toString('utf8')).toBe(`thread:${threadId}`);
  });
});
