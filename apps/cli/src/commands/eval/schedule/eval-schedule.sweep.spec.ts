import type { Clock } from '@caravel/config';
import type { EvalRunRow, EvalScheduleRepository, EvalScheduleRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { Bus } from '@caravel/messaging';
import type { PlatformRuntime } from '@caravel/platform';
import { MemoryLeases, strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import { EvalScheduleSweep } from './eval-schedule.sweep.js';
import { latestNight, nightRunId } from './schedule-night.js';
import type { ScheduledNight, ScheduledSuiteRunner } from './scheduled-suite.runner.js';

const ID = '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e';
const NIGHT = new Date('2026-12-02T02:00:00Z');

const aSchedule = (overrides: Partial<EvalScheduleRow> = {}): EvalScheduleRow => ({
  id: ID,
  name: 'nightly',
  kind: 'harbor',
  source: '/srv/evals/tasks',
  config: 'current',
  model: 'scripted:fix.yaml',
  settings: {},
  attempts: 2,
  hour: 2,
  state: 'active',
  createdBy: 'hubot',
  createdAt: new Date('2026-11-30T12:00:00Z'),
  updatedAt: new Date('2026-11-30T12:00:00Z'),
  failedSlot: null,
  lastError: null,
  ...overrides,
});

/** A fake clock the test moves. */
class FakeClock implements Clock {
  constructor(private at: Date) {}
  now(): Date {
    return new Date(this.at);
  }
  set(at: string): void {
    this.at = new Date(at);
  }
}

interface World {
  sweep: EvalScheduleSweep;
  clock: FakeClock;
  leases: MemoryLeases;
  nights: { name: string; night: ScheduledNight }[];
  failed: { id: string; slot: Date; error: string }[];
  runs: Map<string, EvalRunRow['status']>;
}

/**
 * The sweep over strict doubles: the schedules, the runs recorded per night (`runs`, by run id),
 * a runner that records each night it is asked to run (and fails for `failing`), and the bus's
 * leases in memory on the same clock.
 */
function world(schedules: EvalScheduleRow[], options: { failing?: string; at?: string } = {}) {
  const clock = new FakeClock(new Date(options.at ?? '2026-12-02T03:00:00Z'));
  const leases = new MemoryLeases(clock);
  const w: Omit<World, 'sweep'> = { clock, leases, nights: [], failed: [], runs: new Map() };
  const repository = strictMock<EvalScheduleRepository>(
    {
      list: (filter) => {
        expect(filter).toEqual({ active: true });
        return Promise.resolve(schedules);
      },
      runFor: (id, slot) => {
        const status = w.runs.get(nightRunId(id, slot));
        return Promise.resolve(status ? factory.evalRun({ status }) : null);
      },
      failed: (id, slot, error) => {
        w.failed.push({ id, slot, error });
        return Promise.resolve();
      },
    },
    'eval schedules',
  );
  const runner: ScheduledSuiteRunner = {
    run: (schedule, night) => {
      w.nights.push({ name: schedule.name, night });
      if (schedule.name === options.failing)
        return Promise.reject(new Error('tasks: no task in it'));
      w.runs.set(night.runId, 'finished');
      return Promise.resolve();
    },
  };
  const sweep = new EvalScheduleSweep(
    repository,
    runner,
    strictMock<Bus>({ leases }, 'bus'),
    strictMock<PlatformRuntime>({ name: 'caravel-a' }, 'runtime'),
    clock,
    { checkMs: 60_000, dir: '/data/evals' },
  );
  return { ...w, sweep };
}

describe('scheduled eval suites', () => {
  it("takes a schedule's latest night at its hour, today or yesterday", () => {
    expect(latestNight(2, new Date('2026-12-02T03:00:00Z'))).toEqual(NIGHT);
    expect(latestNight(2, new Date('2026-12-02T02:00:00Z'))).toEqual(NIGHT);
    expect(latestNight(2, new Date('2026-12-02T01:59:00Z'))).toEqual(
      new Date('2026-12-01T02:00:00Z'),
    );
    expect(nightRunId(ID, NIGHT)).toBe(nightRunId(ID, new Date(NIGHT)));
    expect(nightRunId(ID, NIGHT)).not.toBe(nightRunId(ID, new Date('2026-12-01T02:00:00Z')));
  });

  it("runs a due suite once a night, in the night's folder under the night's run id", async () => {
    const w = world([aSchedule()]);
    expect(await w.sweep.sweep()).toEqual({ ran: ['nightly'], failed: [] });
    expect(w.nights).toEqual([
      {
        name: 'nightly',
        night: {
          slot: NIGHT,
          runId: nightRunId(ID, NIGHT),
          out: '/data/evals/nightly/2026-12-02T02',
          signal: expect.any(AbortSignal),
        },
      },
    ]);
    // Later the same night: its run is finished, nothing runs.
    w.clock.set('2026-12-02T09:00:00Z');
    expect(await w.sweep.sweep()).toEqual({ ran: [], failed: [] });
    // The next night comes.
    w.clock.set('2026-12-03T02:30:00Z');
    expect(await w.sweep.sweep()).toEqual({ ran: ['nightly'], failed: [] });
    expect(w.nights.map((n) => n.night.out)).toEqual([
      '/data/evals/nightly/2026-12-02T02',
      '/data/evals/nightly/2026-12-03T02',
    ]);
    expect(await w.leases.get(`evals.schedules:${ID}`)).toBeNull();
  });

  it('resumes a night whose run a crash left running, under the same id and folder', async () => {
    const w = world([aSchedule()]);
    w.runs.set(nightRunId(ID, NIGHT), 'running');
    expect(await w.sweep.sweep()).toEqual({ ran: ['nightly'], failed: [] });
    expect(w.nights[0]?.night).toMatchObject({
      runId: nightRunId(ID, NIGHT),
      out: '/data/evals/nightly/2026-12-02T02',
    });
  });

  it('waits for the first night after registration and leaves a suite another replica runs', async () => {
    const fresh = world([aSchedule({ createdAt: new Date('2026-12-02T02:30:00Z') })]);
    expect(await fresh.sweep.sweep()).toEqual({ ran: [], failed: [] });
    const taken = world([aSchedule()]);
    await taken.leases.acquire(`evals.schedules:${ID}`, 'caravel-b', 600_000);
    expect(await taken.sweep.sweep()).toEqual({ ran: [], failed: [] });
    expect([...fresh.nights, ...taken.nights]).toEqual([]);
  });

  it('keeps a failed night with its error and tries again only the next night', async () => {
    const other = aSchedule({ id: '9d3c1f00-0000-4000-8000-000000000001', name: 'reviews' });
    const w = world([aSchedule(), other], { failing: 'nightly' });
    expect(await w.sweep.sweep()).toEqual({ ran: ['reviews'], failed: ['nightly'] });
    expect(w.failed).toEqual([{ id: ID, slot: NIGHT, error: 'tasks: no task in it' }]);
    const after = world([aSchedule({ failedSlot: NIGHT })], { failing: 'nightly' });
    expect(await after.sweep.sweep()).toEqual({ ran: [], failed: [] });
    after.clock.set('2026-12-03T02:00:00Z');
    expect(await after.sweep.sweep()).toEqual({ ran: [], failed: ['nightly'] });
  });

  it('does nothing while another replica holds the sweep', async () => {
    const w = world([aSchedule()]);
    await w.leases.acquire('evals.schedules', 'caravel-b', 120_000);
    expect(await w.sweep.sweep()).toBeNull();
    expect(w.nights).toEqual([]);
  });
});
