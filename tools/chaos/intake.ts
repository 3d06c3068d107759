import type { SignedRequest } from '../../apps/ingress/src/testing/webhook-request.js';
import type { Observer } from './harness/observer.js';
import type { Ledger, LedgerRow } from './ledger.js';
import { is2xx, send, type Answer } from './senders.js';

/** One delivery a sender wants taken, every answer it got, and how to send it (again). */
export interface TrackedRequest {
  readonly threadId: string;
  /** What kind of request it is, for a finding's evidence. */
  readonly label: string;
  /** Builds the request at send time (Slack signs every retry anew). */
  readonly build: () => SignedRequest;
  readonly answers: Answer[];
}

export function tracked(
  threadId: string,
  build: () => SignedRequest,
  label = 'delivery',
): TrackedRequest {
  return { threadId, label, build, answers: [] };
}

/** Sends `request` (or `build`, another form of it) to `url` and keeps the answer on it. */
export async function sendTracked(
  request: TrackedRequest,
  url: string,
  build: TrackedRequest['build'] = request.build,
): Promise<Answer> {
  const answer = await send(url, build());
  request.answers.push(answer);
  return answer;
}

/**
 * Sends each request once, `concurrency` at a time, round-robin over `urls`. `answered(n)`
 * resolves once n answers are in, so a fault can be injected at a chosen point of the burst.
 */
export class Burst {
  private count = 0;
  private readonly waiters: { at: number; resolve: () => void }[] = [];

  constructor(
    private readonly requests: readonly TrackedRequest[],
    private readonly urls: readonly string[],
    private readonly concurrency: number,
  ) {}

  answered(at: number): Promise<void> {
    if (this.count >= at) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ at, resolve }));
  }

  async run(): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < this.requests.length) {
        const index = next++;
        await sendTracked(this.requests[index]!, this.urls[index % this.urls.length]!);
        this.count += 1;
        for (const waiter of this.waiters.filter((w) => w.at <= this.count)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    };
    await Promise.all(Array.from({ length: this.concurrency }, lane));
  }
}

/**
 * The senders' retries: every request not yet answered 2xx is sent again, `pauseMs` apart, until
 * each has a 2xx or `attempts` rounds are spent.
 */
export async function retryUnacknowledged(
  requests: readonly TrackedRequest[],
  urls: readonly string[],
  attempts: number,
  pauseMs: number,
): Promise<void> {
  for (let round = 0; round < attempts; round += 1) {
    const open = requests.filter((r) => !r.answers.some(is2xx));
    if (open.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    await Promise.all(open.map((r, i) => sendTracked(r, urls[i % urls.length]!)));
  }
}

/** Counts answers by status (`503+RA` for a 503 that carries `Retry-After`). */
export function statusHistogram(answers: readonly Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const key =
      a.status === 0
        ? `no answer (${a.error ?? '?'})`
        : a.status === 503 && a.retryAfter
          ? '503+Retry-After'
          : String(a.status);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
}

/** p50 / p99 / max milliseconds to the last byte of the 2xx answers. */
function percentiles(answers: readonly Answer[]): string {
  const ms = answers
    .filter(is2xx)
    .map((a) => a.ms)
    .sort((a, b) => a - b);
  if (ms.length === 0) return '-';
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!);
  return `p50 ${at(0.5)} / p99 ${at(0.99)} / max ${Math.round(ms.at(-1)!)} ms`;
}

/** A 5xx that is not the documented 503 with `Retry-After`. */
export const undocumented5xx = (a: Answer) =>
  a.status >= 500 && !(a.status === 503 && a.retryAfter !== null);

/**
 * The accounting of webhook requests that each ask for a run on a thread of their own: a
 * request answered 2xx at least once (accepted or duplicate) must have exactly one run and that
 * run one start command; a 2xx that ignored it (`reason` other than duplicate) is a decision
 * already taken. Waits up to `timeoutMs` for the runs to appear.
 */
export async function tallyRunRequests(
  scenario: string,
  requests: readonly TrackedRequest[],
  observer: Observer,
  ledger: Ledger,
  timeoutMs: number,
): Promise<LedgerRow> {
  const answers = requests.flatMap((r) => r.answers);
  const wantRun = requests.filter((r) =>
    r.answers.some((a) => is2xx(a) && (a.accepted || a.reason === 'duplicate')),
  );
  const decided = requests.filter((r) => r.answers.some(is2xx) && !wantRun.includes(r));
  const runs = await observer.awaitRuns(
    wantRun.map((r) => r.threadId),
    timeoutMs,
  );
  const starts = await observer.startCommands();
  let lost = 0;
  let duplicateRuns = 0;
  for (const request of wantRun) {
    const threadRuns = runs.get(request.threadId) ?? [];
    if (threadRuns.length === 0) lost += 1;
    duplicateRuns += Math.max(0, threadRuns.length - 1);
    for (const run of threadRuns) duplicateRuns += Math.max(0, (starts.get(run.id) ?? 0) - 1);
  }
  const bad = answers.filter(undocumented5xx);
  if (bad.length > 0) {
    ledger.finding(
      scenario,
      `${bad.length} answer(s) 5xx without being a 503 with Retry-After (${statusHistogram(bad)})`,
    );
  }
  if (lost > 0) {
    const missing = wantRun.filter((r) => !runs.has(r.threadId)).slice(0, 5);
    const trails = await Promise.all(
      missing.map(
        async (r) =>
          `${r.label} thread ${r.threadId} answered ${r.answers
            .map((a) => `${a.status}${a.reason ? ` ${a.reason}` : a.accepted ? ' accepted' : ''}`)
            .join(', ')}: ${await observer.trail(r.threadId)}`,
      ),
    );
    ledger.finding(
      scenario,
      `${lost} acknowledged request(s) never became a run, e.g. ${trails.join('; ')}`,
    );
  }
  ledger.note(scenario, `answers: ${statusHistogram(answers)}; 2xx in ${percentiles(answers)}`);
  const row: LedgerRow = {
    scenario,
    sent: answers.length,
    acknowledged: answers.filter(is2xx).length,
    processed: wantRun.length - lost + decided.length,
    duplicateIgnored: requests.reduce(
      (n, r) => n + Math.max(0, r.answers.filter(is2xx).length - 1),
      0,
    ),
    lost,
    duplicateRuns,
  };
  ledger.record(row);
  return row;
}
