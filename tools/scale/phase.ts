import { RunStepV1 } from '@caravel/contracts';
import { join } from 'node:path';
import { deleteJetStreamNamespace } from '../../libs/messaging/src/jetstream/jetstream-bus.harness.js';
import type { ChaosRun } from '../chaos/harness/chaos-run.js';
import type { ServiceCounts } from '../chaos/harness/platform.js';
import { Stage } from '../chaos/harness/stage.js';
import { driveLoad, type LoadPlan, type SentTrigger } from './load.js';
import { isLost, type PhaseFacts, type RunFact, type TriggerFact } from './report.js';
import type { TriggerFactory } from './triggers.js';

/** One platform shape to measure. */
export interface PhaseSpec {
  name: string;
  replicas: ServiceCounts;
  natsUrl: string;
  env: Record<string, string>;
  plan: LoadPlan;
  /** How long the runs may take to finish once the load stopped. */
  drainMs: number;
  /** Where the services' logs are kept. */
  logDir: string;
}

/** What a phase found beyond the report's facts. */
export interface PhaseOutcome {
  facts: PhaseFacts;
  /** Start commands beyond one per run (a run started twice shows as a duplicate). */
  startRepeats: number;
  problems: string[];
  drainedMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the services of `spec.replicas` as processes on the shared NATS (a namespace of the run)
 * and a fresh database, installs what the sources need, drives the load with its kills, waits for
 * the runs to drain and reads back what happened. Everything is removed at the end.
 */
export async function runPhase(
  run: ChaosRun,
  factory: TriggerFactory,
  spec: PhaseSpec,
  say: (line: string) => void,
): Promise<PhaseOutcome> {
  // The bus namespace: at most 16 letters or digits, unique on the shared server.
  const part = `s${run.id}${spec.name.slice(0, 4)}`;
  say(`${spec.name}: starting ${JSON.stringify(spec.replicas)}`);
  const stage = await Stage.start(run, { url: spec.natsUrl }, part, spec.replicas, spec.env);
  try {
    await factory.install(stage.platform.url('ingress'));
    say(`${spec.name}: load for ${spec.plan.durationMs / 1000} s at ${spec.plan.rate}/s`);
    const load = await driveLoad(
      stage.platform,
      spec.replicas,
      () => factory.next(),
      spec.plan,
      say,
    );
    const drainStarted = Date.now();
    const facts = async () =>
      Promise.all(load.sent.map(async (s) => factOf(s, await runsOf(stage, s), factory)));
    let triggers = await facts();
    while (triggers.some((t) => t.acceptedAt !== null && !settled(t))) {
      if (Date.now() - drainStarted > spec.drainMs) break;
      await sleep(2_000);
      triggers = await facts();
    }
    // A last look after a pause: a duplicate would come after the first run's PR and reply.
    await sleep(5_000);
    triggers = await facts();
    const lost = load.sent.flatMap((s, i) =>
      isLost(triggers[i]!) ? [[s, triggers[i]!] as const] : [],
    );
    const trails = await Promise.all(lost.map(([s, fact]) => trailOf(stage, s, fact)));
    const starts = await stage.observer.startCommands();
    const down = await stage.platform.unresponsive();
    return {
      facts: {
        name: spec.name,
        replicas: spec.replicas,
        planned: Math.round((spec.plan.rate * spec.plan.durationMs) / 1000),
        loadStartedAt: load.startedAt,
        triggers,
        restarts: load.restarts,
        kills: load.kills,
      },
      startRepeats: [...starts.values()].reduce((n, c) => n + Math.max(0, c - 1), 0),
      problems: [
        ...load.sent.flatMap((s) => s.problems),
        ...trails,
        ...down.map((p) => `${spec.name}: ${p} no longer answers /health/live`),
      ],
      drainedMs: Date.now() - drainStarted,
    };
  } finally {
    await stage.stop(join(spec.logDir, `${spec.name}.log`));
    await deleteJetStreamNamespace(spec.natsUrl, part).catch(() => undefined);
  }
}

/** Done: a completed run, a draft PR and a reply. */
const settled = (t: TriggerFact) =>
  t.runs.some((r) => r.status === 'completed') && t.pulls > 0 && t.replies > 0;

async function runsOf(stage: Stage, sent: SentTrigger): Promise<RunFact[]> {
  const rows = await stage.observer.query<{
    status: string;
    startedAt: Date | null;
    finishedAt: Date | null;
  }>(
    `SELECT status, started_at AS "startedAt", finished_at AS "finishedAt"
       FROM runs WHERE thread_id = $1 AND status <> 'merged' ORDER BY created_at`,
    [sent.trigger.threadId],
  );
  return rows.map((r) => ({
    status: r.status,
    startedAt: r.startedAt?.getTime() ?? null,
    finishedAt: r.finishedAt?.getTime() ?? null,
  }));
}

function factOf(sent: SentTrigger, runs: RunFact[], factory: TriggerFactory): TriggerFact {
  return {
    source: sent.trigger.source,
    sends: sent.sends,
    acceptedAt: sent.acceptedAt,
    runs,
    pulls: factory.pullsOf(sent.trigger),
    replies: sent.trigger.replies(),
  };
}

/** Where a lost request got to: its runs, PRs, replies and the last tool results of its thread. */
async function trailOf(stage: Stage, sent: SentTrigger, fact: TriggerFact): Promise<string> {
  const events = await stage.observer.events(sent.trigger.threadId);
  const results = events
    .filter((e) => e.type === RunStepV1.type)
    .flatMap((e) => RunStepV1.parse(e).data.results)
    .slice(-3);
  return [
    `lost ${sent.trigger.source} ${sent.trigger.threadId}:`,
    `runs ${JSON.stringify(fact.runs.map((r) => r.status))}, PRs ${fact.pulls}, replies ${fact.replies};`,
    `last results ${JSON.stringify(results.map((r) => `${r.name}: ${r.content.slice(0, 300)}`))}`,
  ].join(' ');
}
