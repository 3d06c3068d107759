import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { ThreadPlanRepository } from './thread-plan.repository.js';
import { UserInstructionsRepository } from './user-instructions.repository.js';

await describeEachDatabase(
  'thread plan and user instructions repositories',
  openDatabase,
  (target) => {
    let database: Database;
    let plans: ThreadPlanRepository;
    let instructions: UserInstructionsRepository;

    beforeAll(async () => {
      database = await target.open();
      plans = new ThreadPlanRepository(database.db);
      instructions = new UserInstructionsRepository(database.db);
    });

    afterAll(async () => {
      await database?.close();
    });

    it('numbers revisions per thread and approves the latest, recording who approved', async () => {
      const threadId = randomUUID();
      const other = randomUUID();
      await plans.save({ threadId, title: 'v1', content: '# one', savedBy: 'slack:U1' });
      await plans.save({ threadId: other, title: 'elsewhere', content: 'x' });
      const second = await plans.save({ threadId, title: 'v2', content: '# two' });
      expect(second.revision).toBe(2);

      const approved = await plans.approveLatest({
        threadId,
        approvedBy: 'slack:U1',
        feedback: 'go',
        at: new Date('2026-11-30T10:00:00Z'),
      });

      expect(approved).toMatchObject({
        revision: 2,
        status: 'approved',
        approvedBy: 'slack:U1',
        feedback: 'go',
        approvedAt: new Date('2026-11-30T10:00:00Z'),
      });
      expect((await plans.list(threadId)).map((p) => [p.revision, p.status])).toEqual([
        [1, 'awaiting_approval'],
        [2, 'approved'],
      ]);
      expect(await plans.approveLatest({ threadId: randomUUID(), approvedBy: 'x' })).toBeNull();
    });

    it('keeps the first owner a thread was claimed by', async () => {
      const threadId = randomUUID();
      expect(await plans.ownerOf(threadId)).toBeNull();
      expect(await plans.claimOwner(threadId, 'github:alice')).toBe('github:alice');
      expect(await plans.claimOwner(threadId, 'github:mallory')).toBe('github:alice');
      expect(await plans.ownerOf(threadId)).toBe('github:alice');
    });

    it('keeps one set of instructions per person, replaced on save', async () => {
      const subject = `slack:${randomUUID()}`;
      await instructions.save(subject, 'answer in French');
      await instructions.save(subject, 'answer in Spanish');

      expect((await instructions.find(subject))?.instructions).toBe('answer in Spanish');
      expect(await instructions.find('slack:nobody')).toBeNull();
    });
  },
);
