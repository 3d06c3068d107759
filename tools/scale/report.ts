/**
 * The scale-out measure's accounting, from what actually happened: the sends of each request, the
 * runs the database holds for its thread, the draft PRs and replies on the fakes. Pure, so the
 * maths is unit-tested (report.spec.ts).
 */

/** A run of a request's thread, as the database has it (times in epoch ms). */
export interface RunFact {
  status: string;
  startedAt: number | null;
  finishedAt: number | null;
}

/** One request the load made, and what became of it. */
export interface TriggerFact {
  source: string;
  /** HTTP requests made for it (retries included). */
  sends: number;
  /** When ingress first took it (2xx, accepted or already had it), epoch ms; null: never. */
  acceptedAt: number | null;
  /** The thread's runs, `merged` ones (joined another run) left out. */
  runs: RunFact[];
  pulls: number;
  replies: number;
}

/** One platform's load: its replica counts, the requests and the processes restarted. */
export interface PhaseFacts {
  name: string;
  replicas: Readonly<Record<string, number>>;
  /** Requests the load was to make (rate × duration). */
  planned: number;
  loadStartedAt: number;
  triggers: TriggerFact[];
  restarts: number;
  /** Processes that were killed, by service. */
  kills: Readonly<Record<string, number>>;
}

export interface PhaseReport {
  name: string;
  replicas: Readonly<Record<string, number>>;
  planned: number;
  requests: number;
  webhooksSent: number;
  accepted: number;
  /** Requests ingress never took, however often sent. */
  refused: number;
  runs: number;
  runsCompleted: number;
  pulls: number;
  replies: number;
  /** Taken requests without a completed run, a draft PR and a reply. */
  lost: number;
  /** Requests with more than one run, draft PR or reply. */
  duplicated: number;
  /** Completed runs per minute, from the load's start to the last run's end. */
  throughputPerMinute: number;
  /** Webhook accepted → run started, in ms. */
  startLatencyMs: { p50: number; p99: number; max: number };
  restarts: number;
  kills: Readonly<Record<string, number>>;
  bySource: Record<
    string,
    { requests: number; completed: number; lost: number; duplicated: number }
  >;
}

/** The nearest-rank percentile `p` (0-100] of `values`; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const completed = (t: TriggerFact) => t.runs.filter((r) => r.status === 'completed').length;

/** Taken, and missing its completed run, its draft PR or its reply. */
export const isLost = (t: TriggerFact): boolean =>
  t.acceptedAt !== null && (completed(t) === 0 || t.pulls === 0 || t.replies === 0);

/** More than one run, draft PR or reply for one request. */
export const isDuplicated = (t: TriggerFact): boolean =>
  t.runs.length > 1 || t.pulls > 1 || t.replies > 1;

const sum = (xs: readonly TriggerFact[], f: (t: TriggerFact) => number) =>
  xs.reduce((n, t) => n + f(t), 0);

/** One phase's figures. */
export function summarise(phase: PhaseFacts): PhaseReport {
  const { triggers } = phase;
  const accepted = triggers.filter((t) => t.acceptedAt !== null);
  const latencies = accepted.flatMap((t) => {
    const started = t.runs.map((r) => r.startedAt).filter((s): s is number => s !== null);
    return started.length > 0 ? [Math.min(...started) - t.acceptedAt!] : [];
  });
  const finishes = triggers.flatMap((t) =>
    t.runs
      .filter((r) => r.status === 'completed' && r.finishedAt !== null)
      .map((r) => r.finishedAt!),
  );
  const runsCompleted = sum(triggers, completed);
  const minutes = finishes.length ? (Math.max(...finishes) - phase.loadStartedAt) / 60_000 : 0;
  const bySource: PhaseReport['bySource'] = {};
  for (const t of triggers) {
    const row = (bySource[t.source] ??= { requests: 0, completed: 0, lost: 0, duplicated: 0 });
    row.requests += 1;
    row.completed += completed(t);
    row.lost += isLost(t) ? 1 : 0;
    row.duplicated += isDuplicated(t) ? 1 : 0;
  }
  return {
    name: phase.name,
    replicas: phase.replicas,
    planned: phase.planned,
    requests: triggers.length,
    webhooksSent: sum(triggers, (t) => t.sends),
    accepted: accepted.length,
    refused: triggers.length - accepted.length,
    runs: sum(triggers, (t) => t.runs.length),
    runsCompleted,
    pulls: sum(triggers, (t) => t.pulls),
    replies: sum(triggers, (t) => t.replies),
    lost: triggers.filter(isLost).length,
    duplicated: triggers.filter(isDuplicated).length,
    throughputPerMinute: minutes > 0 ? runsCompleted / minutes : 0,
    startLatencyMs: {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.length ? Math.max(...latencies) : Number.NaN,
    },
    restarts: phase.restarts,
    kills: phase.kills,
    bySource,
  };
}

/** Scaled throughput over the baseline's (NaN when the baseline completed nothing). */
export function scalingRatio(scaled: PhaseReport, baseline: PhaseReport): number {
  return baseline.throughputPerMinute > 0
    ? scaled.throughputPerMinute / baseline.throughputPerMinute
    : Number.NaN;
}

/**
 * Why the phase fails, empty when it does not: anything lost or duplicated, a request never
 * taken, and less work done than reported (fewer requests or sends than planned, fewer draft PRs
 * or replies than completed requests).
 */
export function failures(report: PhaseReport): string[] {
  const out: string[] = [];
  const { name } = report;
  if (report.lost > 0) out.push(`${name}: ${report.lost} request(s) lost`);
  if (report.duplicated > 0) out.push(`${name}: ${report.duplicated} request(s) duplicated`);
  if (report.refused > 0) out.push(`${name}: ${report.refused} request(s) never taken by ingress`);
  if (report.requests < report.planned)
    out.push(`${name}: ${report.requests} request(s) made of ${report.planned} planned`);
  if (report.webhooksSent < report.requests)
    out.push(`${name}: ${report.webhooksSent} webhook(s) sent for ${report.requests} request(s)`);
  const done = report.accepted - report.lost;
  if (report.runsCompleted < done || report.pulls < done || report.replies < done)
    out.push(
      `${name}: ${done} request(s) done but ${report.runsCompleted} completed run(s), ${report.pulls} draft PR(s), ${report.replies} repl(ies)`,
    );
  if (report.requests > 0 && report.runsCompleted === 0) out.push(`${name}: no run completed`);
  return out;
}
