import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { BudgetLimitRepository } from './budget-limit.repository.js';
import { BudgetPauseRepository } from './budget-pause.repository.js';
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
  });
});
