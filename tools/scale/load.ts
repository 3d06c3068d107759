import type { ChaosPlatform, ServiceCounts } from '../chaos/harness/platform.js';
import type { ScaleTrigger } from './triggers.js';

/** How hard and how long the load pushes, and how often a process dies. */
export interface LoadPlan {
  /** Requests per second, cycling through the sources. */
  rate: number;
  durationMs: number;
  /**
   * A random process is killed (`kill -9`) and replaced this often, during the load; 0: never. The
   * next kill waits for the replacement to be ready, so a slow start spaces them out.
   */
  killEveryMs: number;
  /** The services whose processes may be killed; none given: every service's. */
  killOnly?: readonly string[];
  /** How long a sender keeps retrying a request no ingress answered (as GitHub and Slack retry). */
  retryForMs: number;
}

/** One request as the load sent it. */
export interface SentTrigger {
  trigger: ScaleTrigger;
  sends: number;
  acceptedAt: number | null;
  /** Why ingress did not take it, or what it answered that does not add up. */
  problems: string[];
}

export interface LoadResult {
  startedAt: number;
  sent: SentTrigger[];
  restarts: number;
  kills: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Sends `plan.rate` requests a second for `plan.durationMs`, each to the next live ingress in
 * turn (a failed send is retried on the next one a second later, the same delivery), while a
 * random process of `counts` is killed every `plan.killEveryMs` and a fresh one started in its
 * place. Resolves once every request is answered or given up and the last replacement is ready.
 */
export async function driveLoad(
  platform: ChaosPlatform,
  counts: ServiceCounts,
  next: () => ScaleTrigger,
  plan: LoadPlan,
  say: (line: string) => void,
): Promise<LoadResult> {
  const startedAt = Date.now();
  const planned = Math.round((plan.rate * plan.durationMs) / 1000);
  let turn = 0;
  const nextIngress = () => {
    const urls = platform.urls('ingress');
    turn += 1;
    return urls[turn % urls.length]!;
  };
  const kills: Record<string, number> = {};
  let restarts = 0;
  const killer = (async () => {
    if (plan.killEveryMs <= 0) return;
    for (let k = 1; k * plan.killEveryMs < plan.durationMs; k += 1) {
      await sleep(startedAt + k * plan.killEveryMs - Date.now());
      // A replacement that took longer than the interval pushed this kill past the load.
      if (Date.now() - startedAt >= plan.durationMs) break;
      const [name, nth] = pickVictim(counts, plan.killOnly);
      say(`kill -9 ${name} #${nth} at ${Math.round((Date.now() - startedAt) / 1000)} s`);
      kills[name] = (kills[name] ?? 0) + 1;
      await platform.killAndReplace(name, nth);
      restarts += 1;
    }
  })();
  const deliveries: Promise<SentTrigger>[] = [];
  for (let i = 0; i < planned; i += 1) {
    await sleep(startedAt + (i * 1000) / plan.rate - Date.now());
    deliveries.push(deliver(next(), nextIngress, plan.retryForMs));
  }
  const sent = await Promise.all(deliveries);
  await killer;
  return { startedAt, sent, restarts, kills };
}

/** A process to kill: every live process (of `only`'s services, when given) equally likely. */
export function pickVictim(counts: ServiceCounts, only?: readonly string[]): [string, number] {
  const all = Object.entries(counts)
    .filter(([name]) => !only?.length || only.includes(name))
    .flatMap(([name, n]) => Array.from({ length: n }, (_, nth) => [name, nth] as [string, number]));
  if (all.length === 0) throw new Error(`no process to kill among ${only?.join(', ') ?? 'none'}`);
  return all[Math.floor(Math.random() * all.length)]!;
}

/** Sends one request until an ingress takes it, refuses it, or `retryForMs` passed. */
async function deliver(
  trigger: ScaleTrigger,
  nextIngress: () => string,
  retryForMs: number,
): Promise<SentTrigger> {
  const result: SentTrigger = { trigger, sends: 0, acceptedAt: null, problems: [] };
  const started = Date.now();
  for (;;) {
    const outcome = await trigger.send(nextIngress());
    result.sends += 1;
    if (outcome.status === 200 && (outcome.accepted || outcome.duplicate)) {
      result.acceptedAt = Date.now();
      if (outcome.threadId && outcome.threadId !== trigger.threadId)
        result.problems.push(`answered thread ${outcome.threadId}, expected ${trigger.threadId}`);
      return result;
    }
    // An answer that is no failure of the moment (a 2xx ignore, a 4xx other than 408/429).
    const final =
      outcome.status >= 200 && outcome.status < 500 && ![408, 429].includes(outcome.status);
    if (final || Date.now() - started > retryForMs) {
      result.problems.push(`${trigger.source}: last answer ${outcome.status}`);
      return result;
    }
    await sleep(1_000);
  }
}
