import {
  partitionToken,
  threadPartition,
  TriggerReceivedV1,
  type StreamSpec,
  STREAMS,
} from '@caravel/contracts';
import { randomInt, randomUUID } from 'node:crypto';
import { eventually } from '../../../e2e/support/walking-skeleton.js';
import { fuzzCases, oversized, Rng, sendRaw, type FuzzCase } from '../fuzz.js';
import {
  sendTracked,
  statusHistogram,
  tallyRunRequests,
  tracked,
  type TrackedRequest,
} from '../intake.js';
import { GithubMention, send, type Answer } from '../senders.js';
import { expectAllAlive, type ScenarioContext } from './context.js';

const FUZZ = '5 fuzzed webhooks';
const POISON = '5 poison messages';

/** Longest a valid delivery may take while the fuzzing goes on (GitHub waits 10 s). */
const STALL_MS = 10_000;

function sendCase(url: string, fuzz: FuzzCase): Promise<Answer> {
  return 'raw' in fuzz.request ? sendRaw(url, fuzz.request.raw) : send(url, fuzz.request);
}

/** The request of a case, for the accounting (it is never sent again). */
function caseRequest(fuzz: FuzzCase, answer: Answer): TrackedRequest {
  const request = tracked(
    fuzz.threadId,
    () => {
      throw new Error('a fuzz case is sent once');
    },
    fuzz.family,
  );
  request.answers.push(answer);
  return request;
}

/**
 * Scenario 5, webhooks: malformed requests of every family (random bytes, truncated JSON, wrong
 * content types, NUL bytes, deep nesting, huge headers, malformed HTTP) to every ingress, while
 * valid deliveries keep coming. No 5xx, no process down, every valid delivery taken in time.
 */
export async function fuzzedWebhooks(context: ScenarioContext): Promise<void> {
  const { profile, stage, ledger } = context;
  const urls = stage.platform.urls('ingress');
  const rng = new Rng(randomInt(2 ** 31));
  const cases = fuzzCases(rng, profile.fuzz.requests);
  if (profile.fuzz.oversized) cases.push(oversized());
  const fuzzed: TrackedRequest[] = [];
  const valid: TrackedRequest[] = [];
  const families = new Map<string, Answer[]>();

  const fuzzing = (async () => {
    for (const [i, fuzz] of cases.entries()) {
      const answer = await sendCase(urls[i % urls.length]!, fuzz);
      fuzzed.push(caseRequest(fuzz, answer));
      families.set(fuzz.family, [...(families.get(fuzz.family) ?? []), answer]);
    }
  })();
  const alongside = (async () => {
    for (let i = 0; i < profile.fuzz.alongside; i += 1) {
      const mention = new GithubMention(`@caravel chaos: valid beside the fuzz #${i}`);
      const request = tracked(mention.threadId, () => mention.request(), 'valid beside the fuzz');
      valid.push(request);
      await sendTracked(request, urls[i % urls.length]!);
    }
  })();
  await Promise.all([fuzzing, alongside]);

  ledger.note(FUZZ, `seed ${rng.seed}`);
  for (const [family, answers] of families) {
    const slowest = Math.round(Math.max(...answers.map((a) => a.ms)));
    ledger.note(FUZZ, `${family}: ${statusHistogram(answers)} (slowest ${slowest} ms)`);
  }
  const stalled = valid.filter((r) => !r.answers.some((a) => a.accepted && a.ms <= STALL_MS));
  if (stalled.length > 0) {
    ledger.finding(
      FUZZ,
      `${stalled.length} valid deliveries were not accepted within ${STALL_MS} ms: ${statusHistogram(stalled.flatMap((r) => r.answers))}`,
    );
  }
  const slowest = Math.max(...valid.flatMap((r) => r.answers.map((a) => a.ms)));
  ledger.note(FUZZ, `valid deliveries beside the fuzz: slowest answer ${Math.round(slowest)} ms`);
  await tallyRunRequests(FUZZ, [...fuzzed, ...valid], stage.observer, ledger, profile.settleMs);
  await expectAllAlive(context, FUZZ);
}

/** A synthetic trigger for `threadId`, as the CLI or a wakeup publishes one. */
const syntheticTrigger = (threadId: string, text: string) =>
  TriggerReceivedV1.create(
    {
      threadId,
      source: 'synthetic',
      deliveryId: `chaos-${randomUUID()}`,
      author: { externalId: 'chaos' },
      text,
      trusted: true,
    },
    { source: 'chaos' },
  );

/** What a publisher that does not speak Caravel's contracts could put on a subject. */
function poisonPayloads(threadId: string): (string | Uint8Array)[] {
  const envelope = syntheticTrigger(threadId, 'x');
  return [
    'not json at all',
    '',
    '{}',
    '[1,2,3]',
    'null',
    '{"id":"x","type":"trigger.received.v1"}',
    JSON.stringify({ ...envelope, data: { threadId } }),
    JSON.stringify({ ...envelope, type: 'trigger.received.v9' }),
    JSON.stringify({ ...envelope, id: 'not-a-uuid' }),
    Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b]),
    `{"a":${'['.repeat(10_000)}`,
    JSON.stringify({
      ...envelope,
      data: { ...envelope.data, text: 'x'.repeat(900_000) },
      junk: 1,
    }).replace('"trusted":true', '"trusted":"no"'),
  ];
}

/** A thread whose ordered messages share `threadId`'s partition. */
function samePartitionAs(threadId: string): string {
  for (;;) {
    const candidate = randomUUID();
    if (threadPartition(candidate) === threadPartition(threadId)) return candidate;
  }
}

/**
 * Scenario 5, messages: malformed messages published straight onto the trigger subject and the
 * run-finished subject of thread X, then a valid trigger for X and one for another thread of the
 * same partition. Each malformed message must be dead-lettered (once), each valid one become a
 * run, and dispatch stay up.
 */
export async function poisonMessages(context: ScenarioContext): Promise<void> {
  const { profile, stage, admin, ledger } = context;
  const x = randomUUID();
  const y = samePartitionAs(x);
  const partition = partitionToken(threadPartition(x));
  const subjects: [StreamSpec, string, string][] = [
    [STREAMS.TRIGGERS, `thread.${x}.trigger.received.v1.${partition}`, 'dispatch-triggers'],
    [STREAMS.EVENTS, `thread.${x}.evt.run.finished.v1.${partition}`, 'dispatch-run-finished'],
  ];
  const published: { stream: string; consumer: string; sequence: number }[] = [];
  let sent = 0;
  for (const [stream, subject, consumer] of subjects) {
    for (const payload of poisonPayloads(x)) {
      sent += 1;
      const ack = await admin.publishRaw(subject, payload, `poison-${randomUUID()}`);
      published.push({ stream: stream.name, consumer, sequence: ack.sequence });
    }
  }
  const started = Date.now();
  const valid = [x, y].map((threadId) => syntheticTrigger(threadId, 'after the poison'));
  for (const trigger of valid) await stage.observer.bus.publish(TriggerReceivedV1, trigger);
  sent += valid.length;

  const runs = await stage.observer.awaitRuns([x, y], profile.settleMs);
  ledger.note(POISON, `valid triggers after the poison became runs in ${Date.now() - started} ms`);
  const lettersOf = async () => {
    const letters = await stage.observer.bus.deadLetters();
    return published.map(
      (p) =>
        letters.filter(
          (l) => l.stream === p.stream && l.consumer === p.consumer && l.sequence === p.sequence,
        ).length,
    );
  };
  const counts = await eventually(async () => {
    const found = await lettersOf();
    return found.every((n) => n > 0) ? found : undefined;
  }, profile.settleMs).catch(lettersOf);
  const deadLettered = counts.filter((n) => n > 0);
  const twice = counts.filter((n) => n > 1).length;
  if (twice > 0) ledger.finding(POISON, `${twice} message(s) dead-lettered more than once`);
  const validRuns = [x, y].filter((t) => (runs.get(t) ?? []).length > 0).length;
  const lost = published.length - deadLettered.length + (valid.length - validRuns);
  if (lost > 0) {
    ledger.finding(
      POISON,
      `${published.length - deadLettered.length} malformed message(s) neither handled nor dead-lettered; ${valid.length - validRuns} valid trigger(s) without a run`,
    );
  }
  ledger.record({
    scenario: POISON,
    sent,
    acknowledged: sent,
    processed: deadLettered.length + validRuns,
    duplicateIgnored: 0,
    lost,
    duplicateRuns: [x, y].reduce((n, t) => n + Math.max(0, (runs.get(t) ?? []).length - 1), 0),
  });
  await expectAllAlive(context, POISON);
}
