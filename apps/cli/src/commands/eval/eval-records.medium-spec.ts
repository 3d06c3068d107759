import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  evalRunOfLedger,
  openLedger,
  withFinished,
  type AttemptLedger,
  type EvalAttempt,
} from '@caravel/evals';
import { isAppError } from '@caravel/errors';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli.js';
import type { EvalConfig } from './eval-config.js';
import { EvalGate, type CandidateRunner } from './eval-gate.service.js';
import { EvalRecords, RunRecorder, evalDatabaseUrl } from './eval-records.js';
import { recordingIo } from '../../testing/recording-io.js';

const io = recordingIo;

const TASKS = Array.from({ length: 6 }, (_, i) => `acme__strings-${i}`);

const graded = (resolved: boolean): EvalAttempt => ({
  attempt: 1,
  resolved,
  exitStatus: 'submitted',
  costUsd: 0.01,
  modelCalls: 3,
  inputTokens: 800,
  outputTokens: 90,
  wallMs: 2_000,
  patch: resolved ? 'diff --git a/s b/s\n' : '',
});

function ledgerOf(config: string, resolves: (i: number) => boolean, upTo: number): AttemptLedger {
  let ledger = openLedger(undefined, {
    runId: randomUUID(),
    suite: 'strings',
    config,
    model: 'scripted:fix.yaml',
    createdAt: '2026-12-02T09:00:00.000Z',
  }).ledger;
  for (let i = 0; i < upTo; i += 1) ledger = withFinished(ledger, TASKS[i]!, graded(resolves(i)));
  return ledger;
}

describe('eval runs in the database', () => {
  let dir: string;
  let url: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-eval-records-'));
    url = `pglite:${join(dir, 'pgdata')}`;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('takes the database from the option, the URLs, then the embedded data dir', () => {
    expect(evalDatabaseUrl('pglite:memory', { DATABASE_URL: 'postgres://x/y' })).toBe(
      'pglite:memory',
    );
    expect(evalDatabaseUrl(undefined, { CARAVEL_DATA_DIR: '/srv/caravel' })).toBe(
      'pglite:/srv/caravel/pgdata',
    );
    expect(evalDatabaseUrl(undefined, { PATH: '/bin' })).toBeUndefined();
  });

  it('records runs as they go, losing no attempt, and compares them by id', async () => {
    const records = await EvalRecords.open(url);
    const warnings: string[] = [];
    // The baseline resolves every task; two attempts were in the ledger before the database saw them.
    const baseline = ledgerOf('current', () => true, TASKS.length);
    const early = { ...baseline, finished: baseline.finished.slice(0, 2) };
    const recorder = await RunRecorder.start(
      records.runs,
      early,
      { settings: {}, attemptsPerTask: 1, outDir: join(dir, 'base') },
      (line) => warnings.push(line),
    );
    expect(await records.runs.attemptsOf(baseline.runId)).toHaveLength(2);
    recorder.record(TASKS[2]!, baseline.finished[2]!.result);
    await recorder.settle();
    expect(await records.runs.attemptsOf(baseline.runId)).toHaveLength(3);
    // A kill after the ledger kept attempts 4-6 but before the database did: the end records them.
    await recorder.finish(baseline);
    expect(await records.runs.find(baseline.runId)).toMatchObject({ status: 'finished' });
    expect((await records.evalRun(baseline.runId)).tasks.map((t) => t.taskId)).toEqual(TASKS);

    const worse = ledgerOf('cheap', (i) => i < 3, TASKS.length);
    const cheap = await RunRecorder.start(
      records.runs,
      worse,
      { settings: { REASONING_EFFORT: 'low' }, attemptsPerTask: 1, outDir: join(dir, 'cheap') },
      (line) => warnings.push(line),
    );
    await cheap.finish(worse);
    expect(warnings).toEqual([]);
    await records.close();

    const cli = io();
    const status = await runCli(
      ['eval', 'compare', baseline.runId, worse.runId, '--database-url', url, '--alpha', '0.2'],
      {},
      cli,
    );
    expect(cli.errors.join('')).toBe('');
    expect(cli.written.join('')).toContain('lost (3): acme__strings-3, acme__strings-4');
    expect(status).toBe(1);
  });

  it('refuses a run id it does not have, or one with no database configured', async () => {
    const unknown = randomUUID();
    const cli = io();
    expect(
      await runCli(['eval', 'compare', unknown, unknown, '--database-url', url], {}, cli),
    ).toBe(1);
    expect(cli.errors.join('')).toContain(`no eval run ${unknown} in ${url}`);
    const bare = io();
    expect(await runCli(['eval', 'compare', unknown, unknown], {}, bare)).toBe(1);
    expect(bare.errors.join('')).toContain('a run id, but no database is configured');
    expect(bare.errors.join('')).not.toContain('    at ');
  });

  describe('the gate', () => {
    let records: EvalRecords;
    const suite = 'gated';
    const policy = { maxDrop: 0.05, alpha: 0.2 };
    const ran: EvalConfig[] = [];

    /** Records a finished run of the suite under `config` resolving the tasks `resolves` picks. */
    const recordRun = async (config: string, resolves: (i: number) => boolean) => {
      const ledger = { ...ledgerOf(config, resolves, TASKS.length), suite };
      const details = { settings: {}, attemptsPerTask: 1, outDir: join(dir, config) };
      await (
        await RunRecorder.start(records.runs, ledger, details, () => undefined)
      ).finish(ledger);
      return evalRunOfLedger(ledger, TASKS);
    };
    /** The agent under each configuration: `cheap` breaks half the suite, the others none. */
    const runner: CandidateRunner = async (config) => {
      ran.push(config);
      const run = await recordRun(config.name, (i) => config.name !== 'cheap' || i < 3);
      return { run, out: join(dir, 'runs', config.name) };
    };
    const propose = (name: string, model = 'scripted:fix.yaml'): { config: EvalConfig } => ({
      config: { name, model, env: { REASONING_EFFORT: name } },
    });

    beforeAll(async () => {
      records = await EvalRecords.open(url);
    });
    afterAll(() => records?.close());

    it('refuses with no run of the suite to measure against, before running anything', async () => {
      const refused = await new EvalGate(records)
        .decide({ suite, proposal: propose('cheap'), policy, proposedBy: 'ci' }, runner)
        .catch((error: unknown) => error);
      expect(isAppError(refused) && refused.message).toMatch(/no finished run of suite 'gated'/);
      expect(ran).toEqual([]);
    });

    it('refuses a regression and accepts an equal change, which becomes the current one', async () => {
      const current = await recordRun('current', () => true);
      const gate = new EvalGate(records);
      const worse = await gate.decide(
        { suite, proposal: propose('cheap'), policy, proposedBy: 'ci' },
        runner,
      );
      expect(worse.baseline.id).toBe(current.runId);
      expect(worse.proposal).toMatchObject({
        status: 'refused',
        config: 'cheap',
        settings: { REASONING_EFFORT: 'cheap' },
        proposedBy: 'ci',
        baselineRunId: current.runId,
        delta: -0.5,
        pValue: expect.closeTo(1 / 8, 12),
        alpha: 0.2,
        numbers: { tasks: 6, lost: TASKS.slice(3), gained: [] },
      });
      expect(worse.report.written.map((f) => f.slice(dir.length))).toEqual([
        '/runs/cheap/gate/comparison.json',
        '/runs/cheap/gate/chart.svg',
      ]);
      // A refused proposal's run is no baseline; an accepted one's configuration is the current one.
      const same = await gate.decide(
        { suite, proposal: propose('mini', 'openai:gpt-5-mini'), policy, proposedBy: 'ci' },
        runner,
      );
      expect(same.proposal).toMatchObject({ status: 'accepted', baselineRunId: current.runId });
      const next = await gate.decide(
        { suite, proposal: propose('tuned'), policy, proposedBy: 'ci' },
        runner,
      );
      expect(next.baseline.config).toBe('mini');
      expect(next.proposal.baselineRunId).toBe(same.proposal.candidateRunId);
    });

    it('decides a pending proposal once, and measures against the run given', async () => {
      const pending = await records.proposals.propose({
        id: randomUUID(),
        suite,
        config: 'cheap',
        model: 'scripted:cheap.yaml',
        settings: { REASONING_EFFORT: 'low' },
        note: 'from the dashboard',
        proposedBy: 'hubot',
        createdAt: new Date(),
      });
      const baseline = await recordRun('pinned', () => true);
      const gate = new EvalGate(records);
      const request = { suite, proposal: { id: pending.id }, policy, proposedBy: 'ci' };
      const decided = await gate.decide({ ...request, against: baseline.runId }, runner);
      expect(ran.at(-1)).toEqual({
        name: 'cheap',
        model: 'scripted:cheap.yaml',
        env: { REASONING_EFFORT: 'low' },
      });
      expect(decided.proposal).toMatchObject({
        id: pending.id,
        status: 'refused',
        proposedBy: 'hubot',
        baselineRunId: baseline.runId,
      });
      const again = await gate.decide(request, runner).catch((error: unknown) => error);
      expect(isAppError(again) && again.message).toMatch(
        /is refused on suite 'gated', not pending/,
      );
      // A reviewer run of a set named like the suite is no baseline for it.
      const review = await records.runs.start({
        id: randomUUID(),
        kind: 'review',
        suite,
        config: 'reviewer',
        model: 'scripted:review.yaml',
        settings: {},
        attemptsPerTask: 1,
        createdAt: new Date(),
      });
      await records.runs.finish(review.id);
      const against = await gate
        .decide({ ...request, proposal: propose('other'), against: review.id }, runner)
        .catch((error: unknown) => error);
      expect(isAppError(against) && against.message).toMatch(
        /a finished review run of 'gated', not a finished run of suite 'gated'/,
      );
    });
  });

  it('refuses a gate with no database, or with both or neither of --config and --proposal', async () => {
    const suiteDir = join(dir, 'no-suite');
    const cases: [string[], string][] = [
      [['--suite', suiteDir], 'gate needs --config NAME|FILE.json'],
      [['--suite', suiteDir, '--config', 'c', '--proposal', randomUUID()], 'not both'],
      [['--config', 'c'], 'gate needs --suite DIR'],
    ];
    for (const [args, message] of cases) {
      const cli = io();
      expect(await runCli(['eval', 'gate', ...args], {}, cli)).toBe(2);
      expect(cli.errors.join('')).toContain(message);
    }
  });
});
