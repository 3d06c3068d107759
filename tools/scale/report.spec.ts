import { describe, expect, it } from '@jest/globals';
import { pickVictim } from './load.js';
import { killOnlyOf, replicasOf } from './options.js';
import {
  failures,
  percentile,
  scalingRatio,
  summarise,
  type PhaseFacts,
  type TriggerFact,
} from './report.js';

const T0 = 1_000_000;

/** A request taken at `T0 + at`, its one run started `wait` ms later and done 60 s in. */
function done(at: number, wait: number, more: Partial<TriggerFact> = {}): TriggerFact {
  return {
    source: 'github',
    sends: 1,
    acceptedAt: T0 + at,
    runs: [{ status: 'completed', startedAt: T0 + at + wait, finishedAt: T0 + at + 60_000 }],
    pulls: 1,
    replies: 1,
    ...more,
  };
}

const phase = (triggers: TriggerFact[], planned = triggers.length): PhaseFacts => ({
  name: 'scaled',
  replicas: { ingress: 3 },
  planned,
  loadStartedAt: T0,
  triggers,
  restarts: 2,
  kills: { ingress: 2 },
});

describe('the scale report', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('counts completed runs per minute from the load start to the last run end', () => {
    // Three runs done by 2 minutes in: 1.5 a minute.
    const report = summarise(phase([done(0, 500), done(30_000, 1_500), done(60_000, 2_500)]));
    expect(report.runsCompleted).toBe(3);
    expect(report.throughputPerMinute).toBeCloseTo(1.5);
    expect(report.startLatencyMs).toEqual({ p50: 1_500, p99: 2_500, max: 2_500 });
    expect(failures(report)).toEqual([]);
  });

  it('counts a taken request without a PR, a reply or a completed run as lost', () => {
    const report = summarise(
      phase([
        done(0, 10, { pulls: 0 }),
        done(0, 10, { replies: 0 }),
        done(0, 10, { runs: [{ status: 'failed', startedAt: T0, finishedAt: T0 + 1 }] }),
        done(0, 10, { runs: [] }),
        done(0, 10),
      ]),
    );
    expect(report.lost).toBe(4);
    expect(failures(report)).toContain('scaled: 4 request(s) lost');
  });

  it('counts two runs, PRs or replies for one request as one duplicated request', () => {
    const twice = done(0, 10).runs[0]!;
    const report = summarise(
      phase([done(0, 10, { runs: [twice, twice] }), done(0, 10, { pulls: 2, replies: 2 })]),
    );
    expect(report.duplicated).toBe(2);
    expect(report.lost).toBe(0);
    expect(failures(report)).toContain('scaled: 2 request(s) duplicated');
  });

  it('fails when it did less than planned or ingress never took a request', () => {
    const refused = done(0, 10, { acceptedAt: null, runs: [], pulls: 0, replies: 0, sends: 4 });
    const report = summarise(phase([done(0, 10), refused], 5));
    expect(report).toMatchObject({ accepted: 1, refused: 1, lost: 0, webhooksSent: 5 });
    expect(failures(report)).toEqual([
      'scaled: 1 request(s) never taken by ingress',
      'scaled: 2 request(s) made of 5 planned',
    ]);
  });

  it('divides the scaled throughput by the baseline', () => {
    const baseline = summarise(phase([done(0, 10)]));
    const scaled = summarise(phase([done(0, 10), done(0, 10), done(0, 10)]));
    expect(scalingRatio(scaled, baseline)).toBeCloseTo(3);
    expect(scalingRatio(scaled, summarise(phase([])))).toBeNaN();
  });

  it('reads presets and name=count replicas, and refuses unknown services', () => {
    expect(replicasOf('team')).toEqual({
      ingress: 3,
      dispatch: 2,
      'agent-runner': 3,
      'sandbox-broker': 2,
    });
    expect(replicasOf('ingress=2')).toMatchObject({ ingress: 2, dispatch: 1 });
    expect(() => replicasOf('reviewer=2')).toThrow(/--replicas/);
  });

  it('kills only the named services when told, any process otherwise', () => {
    const team = replicasOf('team');
    expect(killOnlyOf('')).toEqual([]);
    expect(killOnlyOf('sandbox-broker, dispatch')).toEqual(['sandbox-broker', 'dispatch']);
    expect(() => killOnlyOf('reviewer')).toThrow(/--kill-only reviewer: unknown service reviewer/);
    const picked = new Set<string>();
    for (let i = 0; i < 200; i += 1) picked.add(pickVictim(team, ['sandbox-broker']).join('#'));
    expect([...picked].sort()).toEqual(['sandbox-broker#0', 'sandbox-broker#1']);
    for (let i = 0; i < 400; i += 1) picked.add(pickVictim(team, [])[0]);
    expect([...picked].filter((p) => !p.includes('#')).sort()).toEqual([
      'agent-runner',
      'dispatch',
      'ingress',
      'sandbox-broker',
    ]);
  });
});
