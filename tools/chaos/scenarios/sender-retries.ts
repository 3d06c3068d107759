import { CARAVEL_NAMESPACE, uuidV5 } from '@caravel/contracts';
import { randomUUID } from 'node:crypto';
import { sendTracked, tallyRunRequests, tracked, type TrackedRequest } from '../intake.js';
import { GithubMention, SlackMention } from '../senders.js';
import { hold, expectAllAlive, type ScenarioContext } from './context.js';

const SCENARIO = '1 sender retries x3 ingress';

/** The window Caravel gives every stream (`libs/messaging/src/jetstream/stream-setup.ts`). */
const DUPLICATE_WINDOW_MS = 120_000;

/** A delivery and every way its sender (or a second hook) sends it again. */
interface Retried {
  readonly request: TrackedRequest;
  readonly source: 'github' | 'slack';
  readonly deliveryId: string;
  /** The n-th repeat of the request (0 is the original). */
  repeat(n: number): TrackedRequest['build'];
  /** The same request under another id: a second hook's GUID, or Slack's `message` twin. */
  twin: TrackedRequest['build'];
}

function githubRetried(): Retried {
  const mention = new GithubMention('@caravel please look at this (chaos: retries)');
  const secondHook = randomUUID();
  const request = tracked(mention.threadId, () => mention.request());
  return {
    request,
    source: 'github',
    deliveryId: mention.deliveryId,
    repeat: () => () => mention.request(),
    twin: () => mention.request(secondHook),
  };
}

function slackRetried(): Retried {
  const mention = new SlackMention('please look at this (chaos: retries)');
  const request = tracked(mention.threadId, () => mention.request());
  return {
    request,
    source: 'slack',
    deliveryId: mention.eventId,
    // Slack numbers its retries 1-3 and signs each one anew.
    repeat: (n) => () => mention.request('app_mention', n === 0 ? undefined : Math.min(n, 3)),
    twin: () => mention.request('message'),
  };
}

/** Sends `build` to every ingress at once, its answers kept on `request`. */
async function toEveryIngress(
  context: ScenarioContext,
  request: TrackedRequest,
  build: TrackedRequest['build'],
): Promise<void> {
  const urls = context.stage.platform.urls('ingress');
  await Promise.all(urls.map((url) => sendTracked(request, url, build)));
}

/**
 * The ingress crashed after its publish was acknowledged and before it settled the delivery:
 * what its claim looks like then (the row unsettled), set by hand since the instant cannot be
 * hit from outside.
 */
async function unsettle(context: ScenarioContext, delivery: Retried): Promise<void> {
  const id = uuidV5(`delivery:${delivery.source}:${delivery.deliveryId}`, CARAVEL_NAMESPACE);
  await context.stage.observer.query('UPDATE deliveries SET settled_at = NULL WHERE id = $1', [id]);
}

/**
 * Scenario 1 (T5, T6): each delivery sent to three ingress processes at once, `rounds` times;
 * the same comment under a second hook's GUID and Slack's `message` twin, to all three; then,
 * once the streams' duplicate window has passed, the delivery again, and once more as the retry
 * of an ingress that crashed between publish and settle (its publish is no longer dropped by
 * the bus, so dispatch must drop it). Each must give one run and one start command.
 */
export async function senderRetries(context: ScenarioContext): Promise<void> {
  const { profile } = context;
  const deliveries: Retried[] = [];
  for (let i = 0; i < profile.retries.requests; i += 1) {
    deliveries.push(githubRetried(), slackRetried());
  }
  if (profile.retries.duplicateWindow === 'shrink') {
    await context.admin.setDuplicateWindow(profile.retries.windowMs);
  }
  try {
    await retryEverywhere(context, deliveries);
  } finally {
    await context.admin.setDuplicateWindow(DUPLICATE_WINDOW_MS);
  }
  const stored = await Promise.all(
    deliveries.map((d) => context.stage.observer.triggersOf(d.request.threadId)),
  );
  // Two per delivery: the first, and the republish of the crashed claim once the window passed.
  context.ledger.note(SCENARIO, `triggers stored per delivery: ${stored.join(', ')}`);
  await tallyRunRequests(
    SCENARIO,
    deliveries.map((d) => d.request),
    context.stage.observer,
    context.ledger,
    profile.settleMs,
  );
  await expectAllAlive(context, SCENARIO);
}

async function retryEverywhere(context: ScenarioContext, deliveries: Retried[]): Promise<void> {
  const { profile } = context;
  await Promise.all(
    deliveries.map(async (delivery) => {
      for (let round = 0; round < profile.retries.rounds; round += 1) {
        await toEveryIngress(context, delivery.request, delivery.repeat(round));
      }
      await toEveryIngress(context, delivery.request, delivery.twin);
    }),
  );
  await context.stage.observer.awaitRuns(
    deliveries.map((d) => d.request.threadId),
    profile.settleMs,
  );
  await hold(profile.retries.windowMs + 1_000);
  for (const delivery of deliveries) {
    await toEveryIngress(context, delivery.request, delivery.repeat(profile.retries.rounds));
  }
  for (const delivery of deliveries) {
    await unsettle(context, delivery);
    await toEveryIngress(context, delivery.request, delivery.repeat(profile.retries.rounds + 1));
  }
  await context.admin.awaitIdle('CARAVEL_TRIGGERS', 'dispatch-triggers', profile.settleMs);
}
