import { expectReady } from '../../../e2e/support/walking-skeleton.js';
import {
  Burst,
  retryUnacknowledged,
  statusHistogram,
  tallyRunRequests,
  tracked,
  type TrackedRequest,
} from '../intake.js';
import { GithubMention, SlackMention, type Answer } from '../senders.js';
import { expectAllAlive, hold, type ScenarioContext } from './context.js';

/** A dependency the platform loses during a burst, for a while. */
interface Outage {
  readonly scenario: string;
  begin(): Promise<void>;
  end(): Promise<void>;
  readonly durationMs: number;
  /** What every answer given while the dependency is away must be. */
  readonly whileAway: (answer: Answer) => boolean;
  readonly whileAwayRule: string;
}

/** Distinct mentions, each a thread of its own, half GitHub and half Slack. */
function mentions(count: number, label: string): TrackedRequest[] {
  return Array.from({ length: count }, (_, i) => {
    if (i % 2 === 0) {
      const mention = new GithubMention(`@caravel chaos ${label} #${i}`);
      return tracked(mention.threadId, () => mention.request());
    }
    const mention = new SlackMention(`chaos ${label} #${i}`);
    return tracked(mention.threadId, () => mention.request());
  });
}

/**
 * A burst of deliveries over every ingress; a third of the way in the dependency goes away for
 * its duration and comes back; the burst finishes; then the senders retry whatever was not
 * answered 2xx. Every request answered 2xx must become exactly one run.
 */
async function burstThroughOutage(context: ScenarioContext, outage: Outage): Promise<void> {
  const { profile, stage } = context;
  const urls = stage.platform.urls('ingress');
  const requests = mentions(profile.burst.deliveries, outage.scenario);
  const burst = new Burst(requests, urls, profile.burst.concurrency);
  const running = burst.run();
  await burst.answered(Math.floor(profile.burst.deliveries / 3));
  const began = Date.now();
  await outage.begin();
  await hold(outage.durationMs);
  await outage.end();
  const ended = Date.now();
  await running;
  const revived = await stage.platform.reviveDead();
  if (revived.length > 0) {
    context.ledger.finding(
      outage.scenario,
      `crashed during the outage (restarted, as a supervisor would): ${revived.join(', ')}`,
    );
  }
  const live = stage.platform.urls('ingress');
  for (const url of live) await expectReady(url);
  await retryUnacknowledged(requests, live, 10, 2_000);

  const during = requests
    .flatMap((r) => r.answers)
    .filter((a) => a.at >= began && a.at + a.ms <= ended);
  const wrong = during.filter((a) => !outage.whileAway(a));
  context.ledger.note(
    outage.scenario,
    `${Math.round((ended - began) / 100) / 10} s away; answers while away: ${statusHistogram(during) || 'none'}`,
  );
  if (wrong.length > 0) {
    context.ledger.finding(
      outage.scenario,
      `${wrong.length} answer(s) while away were not ${outage.whileAwayRule}: ${statusHistogram(wrong)}`,
    );
  }
  await tallyRunRequests(
    outage.scenario,
    requests,
    stage.observer,
    context.ledger,
    profile.settleMs,
  );
  await expectAllAlive(context, outage.scenario);
}

/** Scenario 3: `kill -9` of nats-server during a burst, then the server started again. */
export function natsKilledDuringBurst(context: ScenarioContext): Promise<void> {
  return burstThroughOutage(context, {
    scenario: '3 nats-server kill -9',
    begin: () => context.nats.kill(),
    end: () => context.nats.restart(),
    durationMs: context.profile.natsDownMs,
    whileAway: (a) => a.status === 503 && a.retryAfter !== null,
    whileAwayRule: '503 with Retry-After',
  });
}

/** Scenario 4: PostgreSQL cut (behind the proxy) for `durationMs` during a burst, then restored. */
export function postgresCutDuringBurst(
  context: ScenarioContext,
  durationMs: number,
): Promise<void> {
  return burstThroughOutage(context, {
    scenario: `4 PostgreSQL cut ${durationMs / 1000} s`,
    begin: () => context.stage.database.cut(),
    end: () => context.stage.database.restore(),
    durationMs,
    whileAway: (a) => a.status === 503 && a.retryAfter !== null,
    whileAwayRule: '503 with Retry-After',
  });
}
