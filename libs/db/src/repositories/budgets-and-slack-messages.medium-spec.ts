import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { BudgetLimitRepository } from './budget-limit.repository.js';
import { BudgetPauseRepository } from './budget-pause.repository.js';
import { RunRepository } from './run.repository.js';
import { ThreadRepository } from './thread.repository.js';
import { capturingStatements, countingStatements } from '../testing/statement-counter.js';
import { CompiledQuery } from 'kysely';
import { SlackMessageRepository } from './slack-message.repository.js';

await describeEachDatabase('budgets and the Slack message map', openDatabase, (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await target.open();
  });

  afterAll(async () => {
    await database?.close();
  });

  describe('budget limits', () => {
    it("finds the team's, the repository's (any case) and the person's, and nobody else's", async () => {
      const limits = new BudgetLimitRepository(database.db);
      const person = `slack:${randomUUID()}`;
      await limits.save({ scope: 'team', subject: 'team', budgetUsd: 10, updatedBy: 'admin' });
      await limits.save({
        scope: 'repository',
        subject: 'acme/widgets',
        budgetUsd: 4,
        updatedBy: 'a',
      });
      await limits.save({ scope: 'person', subject: person, budgetUsd: 2.5, updatedBy: 'a' });
      await limits.save({ scope: 'person', subject: 'slack:other', budgetUsd: 1, updatedBy: 'a' });

      expect(await limits.applicable({ repository: 'Acme/Widgets', person })).toEqual({
        team: 10,
        repository: 4,
        person: 2.5,
      });
      await limits.remove('person', person);
      expect(await limits.applicable({ repository: null, person })).toEqual({
        team: 10,
        repository: null,
        person: null,
      });
    });

    it('lists every limit, the team first, and forgets a removed one', async () => {
      const limits = new BudgetLimitRepository(database.db);
      const person = `github:${randomUUID()}`;
      await limits.save({ scope: 'person', subject: person, budgetUsd: 3, updatedBy: 'a' });
      await limits.save({ scope: 'team', subject: 'team', budgetUsd: 12, updatedBy: 'b' });
      const listed = await limits.list();
      expect(listed[0]).toMatchObject({ scope: 'team', budgetUsd: 12, updatedBy: 'b' });
      expect(listed.find((row) => row.subject === person)).toMatchObject({ budgetUsd: 3 });
      expect(await limits.remove('person', person)).toBe(true);
      expect(await limits.remove('person', person)).toBe(false);
      expect((await limits.list()).some((row) => row.subject === person)).toBe(false);
    });

    it('refuses a limit of zero or less', async () => {
      const limits = new BudgetLimitRepository(database.db);
      await expect(
        limits.save({ scope: 'person', subject: 'slack:U0', budgetUsd: 0, updatedBy: 'a' }),
      ).rejects.toMatchObject({ code: '23514' });
    });
  });

  describe('budget pauses', () => {
    it('sets the grant of the awaiting pause (the latest wins) and lets one continuing run take it, once', async () => {
      const pauses = new BudgetPauseRepository(database.db);
      const threadId = randomUUID();
      const paused = randomUUID();
      const next = randomUUID();
      expect(await pauses.grant({ threadId, usd: 5, by: 'slack:U1' })).toBeNull();
      await pauses.record({ runId: paused, threadId, budgetUsd: 3, spentUsd: 2.9 });
      expect(await pauses.record({ runId: paused, threadId, budgetUsd: 9, spentUsd: 9 })).toBe(
        false,
      );
      expect(await pauses.takeGrant(threadId, next)).toBeNull();

      await pauses.grant({ threadId, usd: 5, by: 'slack:U1' });
      await pauses.grant({ threadId, usd: 1.5, by: 'slack:U2' });

      const taken = await pauses.takeGrant(threadId, next);
      expect(taken).toMatchObject({ runId: paused, budgetUsd: 3, spentUsd: 2.9, grantedUsd: 1.5 });
      expect(await pauses.takeGrant(threadId, next)).toMatchObject({ runId: paused });
      expect(await pauses.takeGrant(threadId, randomUUID())).toBeNull();
      expect(await pauses.awaiting(threadId)).toBeNull();
    });
  });

  describe('where an awaiting pause stands', () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));

    async function pausedRun(exitStatus = 'exit_budget_paused') {
      const threadId = randomUUID();
      const runId = randomUUID();
      await new ThreadRepository(database.db).upsert({ id: threadId, source: 'slack' });
      const runs = new RunRepository(database.db);
      await runs.create({ id: runId, threadId, triggerId: runId, createdAt: at(0) });
      await runs.markFinished(runId, { status: 'interrupted', exitStatus, at: at(1) });
      await new BudgetPauseRepository(database.db).record({
        runId,
        threadId,
        budgetUsd: 2,
        spentUsd: 1.9,
        at: at(1),
      });
      return { threadId, runId, runs };
    }

    it('is open after its run ended paused, superseded by a later run (not a merged one)', async () => {
      const pauses = new BudgetPauseRepository(database.db);
      const { threadId, runs } = await pausedRun();
      const merged = randomUUID();
      await runs.create({ id: merged, threadId, triggerId: merged, createdAt: at(2) });
      await runs.markFinished(merged, { status: 'merged', at: at(2) });
      expect(await pauses.listAwaiting({ threadId })).toMatchObject([
        { standing: 'open', supersededBy: null, spentUsd: 1.9 },
      ]);

      const later = randomUUID();
      await runs.create({ id: later, threadId, triggerId: later, createdAt: at(3) });
      expect(await pauses.listAwaiting({ threadId })).toMatchObject([
        { standing: 'superseded', supersededBy: later },
      ]);
      expect(await pauses.listAwaiting({ threadId, ignoringTrigger: later })).toMatchObject([
        { standing: 'open' },
      ]);
    });

    it('is stopped when its run was stopped instead, and left out once a run continued it', async () => {
      const pauses = new BudgetPauseRepository(database.db);
      const stopped = await pausedRun('exit_interrupted');
      expect(await pauses.listAwaiting({ threadId: stopped.threadId })).toMatchObject([
        { standing: 'stopped' },
      ]);

      const { threadId } = await pausedRun();
      await pauses.grant({ threadId, usd: 4, by: 'slack:U1', at: at(5) });
      const continuation = randomUUID();
      await stopped.runs.create({
        id: continuation,
        threadId,
        triggerId: continuation,
        createdAt: at(6),
      });
      expect(await pauses.listAwaiting({ threadId })).toMatchObject([{ standing: 'open' }]);
      await pauses.takeGrant(threadId, continuation);
      expect(await pauses.listAwaiting({ threadId })).toEqual([]);
      const everyone = await pauses.listAwaiting({ limit: 500 });
      expect(everyone.some((pause) => pause.threadId === stopped.threadId)).toBe(true);
    });

    it('is stopped once a stop of its idle thread withdrew it: no grant nor run continues it', async () => {
      const pauses = new BudgetPauseRepository(database.db);
      const { threadId, runId, runs } = await pausedRun();
      expect(await pauses.withdraw({ threadId, by: 'slack:U2', at: at(4) })).toEqual([runId]);
      expect(await pauses.withdraw({ threadId, by: 'slack:U2', at: at(5) })).toEqual([]);
      expect(await pauses.listAwaiting({ threadId })).toMatchObject([
        { standing: 'stopped', withdrawnBy: 'slack:U2', withdrawnAt: at(4) },
      ]);
      expect(await pauses.awaiting(threadId)).toBeNull();
      expect(await pauses.grant({ threadId, usd: 5, by: 'slack:U1' })).toBeNull();
      const later = randomUUID();
      await runs.create({ id: later, threadId, triggerId: later, createdAt: at(6) });
      expect(await pauses.takeGrant(threadId, later)).toBeNull();
    });
  });

  describe('Slack messages', () => {
    it('keeps the first thread of a message, follows a move and keeps a deleted one', async () => {
      const slack = new SlackMessageRepository(database.db);
      const team = `T${randomUUID().slice(0, 6)}`;
      const threadId = randomUUID();
      const root = { team, channel: 'C1', ts: '1700000000.000100' };
      expect(await slack.record({ ...root, threadId })).toBe(threadId);
      expect(await slack.record({ ...root, threadId: randomUUID() })).toBe(threadId);

      const moved = { team, channel: 'C2', ts: '1700000500.000200' };
      expect(await slack.follow(root, moved)).toBe(threadId);
      expect(await slack.threadOf(moved)).toBe(threadId);
      expect(await slack.follow({ team, channel: 'C9', ts: '1.2' }, moved)).toBeNull();

      expect(await slack.markDeleted(root)).toBe(threadId);
      expect(await slack.threadOf(root)).toBe(threadId);
      expect(await slack.markDeleted({ team, channel: 'C1', ts: '9.9' })).toBeNull();
    });

    it('records and looks up the messages of concurrent requests together, the first thread kept', async () => {
      const counter = countingStatements(database.db);
      const slack = new SlackMessageRepository(counter.db, { statementsOnThisThread: true });
      const team = `T${randomUUID().slice(0, 6)}`;
      const places = Array.from({ length: 8 }, (_, n) => ({ team, channel: 'C1', ts: `${n}.1` }));
      const threads = places.map(() => randomUUID());
      // The first place twice in one batch: the second record gets the first one's thread.
      const recorded = await Promise.all(
        [...places, places[0]!].map((place, n) =>
          slack.record({ ...place, threadId: threads[n] ?? randomUUID() }),
        ),
      );
      expect(recorded).toEqual([...threads, threads[0]]);
      expect(counter.statements()).toBe(2);

      const unknown = { team, channel: 'C1', ts: '9.9' };
      const found = await Promise.all([...places, unknown].map((place) => slack.threadOf(place)));
      expect(found).toEqual([...threads, null]);
      expect(counter.statements()).toBe(3);
    });

    it("looks places up by index, not by scanning the channel's messages", async () => {
      const team = `T${randomUUID().slice(0, 6)}`;
      const recorder = new SlackMessageRepository(database.db);
      const history = Array.from({ length: 300 }, (_, n) => ({
        team,
        channel: 'C1',
        ts: `${n}.2`,
      }));
      await Promise.all(
        history.map((place) => recorder.record({ ...place, threadId: randomUUID() })),
      );
      const captured = capturingStatements(database.db);
      const slack = new SlackMessageRepository(captured.db, { statementsOnThisThread: true });
      const asked = [history[7]!, { team, channel: 'C1', ts: 'absent' }];
      expect(await Promise.all(asked.map((place) => slack.threadOf(place)))).toEqual([
        expect.any(String),
        null,
      ]);
      const [lookup] = captured.statements;
      const explained = await database.db.executeQuery<{ 'QUERY PLAN': unknown }>(
        CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${lookup!.sql}`, [...lookup!.parameters]),
      );
      // The message rows the statement read: those it returned and those a filter threw away.
      const read = rowsReadFrom('slack_messages', explained.rows[0]!['QUERY PLAN']);
      expect(read).toBeLessThanOrEqual(asked.length);
    });
  });
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the plan's scans of `table` produced or filtered out, over all their loops. */
function rowsReadFrom(table: string, explained: unknown): number {
  const plan = (typeof explained === 'string' ? JSON.parse(explained) : explained) as {
    Plan: PlanNode;
  }[];
  const walk = (node: PlanNode): number =>
    (node['Relation Name'] === table
      ? ((node['Actual Rows'] ?? 0) +
          (node['Rows Removed by Filter'] ?? 0) +
          (node['Rows Removed by Index Recheck'] ?? 0)) *
        (node['Actual Loops'] ?? 1)
      : 0) + (node.Plans ?? []).reduce((sum, child) => sum + walk(child), 0);
  return walk(plan[0]!.Plan);
}
