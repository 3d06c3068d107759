import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { CiWatchRepository, type CiWatchSave } from './ci-watch.repository.js';
import { RunNoticeRepository } from './run-notice.repository.js';
import { RunQueueRepository } from './run-queue.repository.js';
import { RunRepository } from './run.repository.js';
import { ThreadWakeupRepository } from './thread-wakeup.repository.js';
import { ThreadRepository } from './thread.repository.js';

const t = (seconds: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

await describeEachDatabase(
  'dispatch repositories (queue, notices, wakeups, heartbeats, replyTo, CI watches)',
  openDatabase,
  (target) => {
    let database: Database;
    let threads: ThreadRepository;
    let runs: RunRepository;
    let queue: RunQueueRepository;
    let notices: RunNoticeRepository;
    let wakeups: ThreadWakeupRepository;

    beforeAll(async () => {
      database = await target.open();
      threads = new ThreadRepository(database.db);
      runs = new RunRepository(database.db);
      queue = new RunQueueRepository(database.db);
      notices = new RunNoticeRepository(database.db);
      wakeups = new ThreadWakeupRepository(database.db);
    });

    afterAll(async () => {
      await database?.close();
    });

    async function newRun(at = t(0)) {
      const threadId = randomUUID();
      await threads.upsert({ id: threadId, source: 'slack' });
      const id = randomUUID();
      await runs.create({ id, threadId, triggerId: id, createdAt: at });
      return { id, threadId };
    }

    describe('threads', () => {
      it('keep the reply pointer merged across triggers and the latest time a person wrote', async () => {
        const id = randomUUID();
        await threads.upsert({
          id,
          source: 'slack',
          replyTo: { channel: 'C1', threadTs: '1.5' },
          humanAt: t(10),
        });
        await threads.upsert({ id, source: 'synthetic', replyTo: {}, humanAt: null });
        const row = await threads.upsert({ id, source: 'slack', replyTo: { team: 'T1' } });
        expect(row.replyTo).toEqual({ channel: 'C1', threadTs: '1.5', team: 'T1' });
        expect(row.lastHumanAt).toEqual(t(10));
        await threads.upsert({ id, source: 'slack', humanAt: t(5) });
        expect((await threads.get(id))?.lastHumanAt).toEqual(t(10));
        await threads.upsert({ id, source: 'slack', humanAt: t(20) });
        expect((await threads.get(id))?.lastHumanAt).toEqual(t(20));
      });
    });

    describe('run queue', () => {
      it('parks a run, lists it as waiting, and admits it once with a first heartbeat', async () => {
        const { id, threadId } = await newRun();
        const depth = await queue.depth();
        const entry = {
          runId: id,
          threadId,
          repositoryKey: 'acme/api',
          userKey: 'slack:U1',
          command: { prompt: 'hi', runId: id },
          enqueuedAt: t(1),
        };
        expect(await queue.enqueue(entry)).toBe(true);
        expect(await queue.enqueue(entry)).toBe(false);
        expect(await queue.park(id)).toBe(true);
        expect((await runs.get(id))?.status).toBe('waiting');

        const before = await queue.snapshot();
        expect(before.waiting.map((w) => w.runId)).toContain(id);
        expect(await queue.depth()).toEqual({ waiting: depth.waiting + 1, active: depth.active });
        expect(before.waiting.find((w) => w.runId === id)?.command).toEqual(entry.command);

        expect(await queue.exclusive((trx) => queue.admit(id, t(30), trx))).toBe(true);
        expect(await queue.admit(id, t(31))).toBe(false);
        expect(await runs.get(id)).toMatchObject({ status: 'queued', heartbeatAt: t(30) });

        const after = await queue.snapshot();
        expect(after.waiting.map((w) => w.runId)).not.toContain(id);
        expect(await queue.depth()).toEqual({ waiting: depth.waiting, active: depth.active + 1 });
        expect(after.active).toContainEqual({
          runId: id,
          repositoryKey: 'acme/api',
          userKey: 'slack:U1',
        });
        expect(after.repositoriesLastAdmitted).toContainEqual({ key: 'acme/api', at: t(30) });
        expect(after.usersLastAdmitted).toContainEqual({ key: 'slack:U1', at: t(30) });

        await runs.markFinished(id, { status: 'completed' });
        expect((await queue.snapshot()).active.map((a) => a.runId)).not.toContain(id);
      });

      it('places each waiting run in the fair order, overall and in its repository', async () => {
        const [x, y] = [`acme/x-${randomUUID()}`, `acme/y-${randomUUID()}`];
        const wait = async (repositoryKey: string, userKey: string, second: number) => {
          const { id, threadId } = await newRun(t(second));
          const entry = { runId: id, threadId, repositoryKey, userKey, command: {} };
          await queue.enqueue({ ...entry, enqueuedAt: t(second) });
          await queue.park(id);
          return id;
        };
        const x1 = await wait(x, 'slack:UX', 100);
        const x2 = await wait(x, 'slack:UX', 101);
        const y1 = await wait(y, 'slack:UY', 102);

        const positions = await queue.positions();
        const of = (runId: string) => positions.find((p) => p.run.runId === runId);

        // Repositories take turns: y1 goes before x2 although it asked later.
        expect([of(x1), of(y1), of(x2)].map((p) => p?.repositoryPosition)).toEqual([1, 1, 2]);
        expect(of(x1)!.position).toBeLessThan(of(y1)!.position);
        expect(of(y1)!.position).toBeLessThan(of(x2)!.position);
        expect(of(x2)?.run).toMatchObject({ repositoryKey: x, enqueuedAt: t(101) });
        for (const id of [x1, x2, y1]) await runs.markFinished(id, { status: 'interrupted' });
        expect(await queue.positions()).not.toContainEqual(
          expect.objectContaining({ run: expect.objectContaining({ runId: x1 }) }),
        );
      });

      it('serialises admissions: concurrent deciders never admit past a limit', async () => {
        const ids = await Promise.all([0, 1, 2, 3].map(() => newRun()));
        for (const { id, threadId } of ids) {
          await queue.enqueue({
            runId: id,
            threadId,
            repositoryKey: 'acme/limit',
            userKey: 'u',
            command: {},
          });
          await queue.park(id);
        }
        // Each decider admits one run of acme/limit only while fewer than two are active.
        const decide = () =>
          queue.exclusive(async (trx) => {
            const snapshot = await queue.snapshot(trx);
            const active = snapshot.active.filter((a) => a.repositoryKey === 'acme/limit');
            const next = snapshot.waiting.find((w) => w.repositoryKey === 'acme/limit');
            if (active.length >= 2 || !next) return false;
            return queue.admit(next.runId, undefined, trx);
          });
        const results = await Promise.all([decide(), decide(), decide(), decide()]);
        expect(results.filter(Boolean)).toHaveLength(2);
      });

      it('lets one of many claimants publish an admitted run start, and again only once given back', async () => {
        const { id, threadId } = await newRun();
        await queue.enqueue({ runId: id, threadId, repositoryKey: 'r', userKey: 'u', command: {} });
        expect(await queue.claimStartPublication(id)).toBe(false); // not admitted yet
        await queue.admit(id, t(5));

        const claims = await Promise.all(
          [0, 1, 2, 3].map(() => queue.claimStartPublication(id, t(6))),
        );
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect((await queue.get(id))?.startPublishedAt).toEqual(t(6));

        await queue.releaseStartPublication(id);
        expect(await queue.claimStartPublication(id, t(7))).toBe(true);
        expect(await queue.claimStartPublication(id, t(8))).toBe(false);
      });
    });

    describe('run conclusions', () => {
      it("records a runner's conclusion and ending once", async () => {
        const { id } = await newRun();
        const ending = { runId: id, outcome: 'completed', exitStatus: 'submitted', summary: 'ok' };
        expect(await runs.recordConclusion(id, ending, t(40))).toBe(true);
        expect(await runs.recordConclusion(id, { ...ending, summary: 'again' }, t(41))).toBe(false);
        expect(await runs.get(id)).toMatchObject({ concludedAt: t(40), conclusion: ending });
        expect(await runs.recordConclusion(randomUUID(), ending)).toBe(false);
      });
    });

    describe('heartbeats and stale runs', () => {
      it('finds queued and running runs whose last sign of life is older than their limit', async () => {
        const pending = await newRun(t(0));
        const fresh = await newRun(t(0));
        const running = await newRun(t(0));
        const alive = await newRun(t(0));
        await runs.touch(fresh.id, t(100));
        await runs.markStarted(running.id, { runner: 'r', at: t(10) });
        await runs.markStarted(alive.id, { runner: 'r', at: t(10) });
        expect(await runs.touch(alive.id, t(90))).toBe(true);
        expect(await runs.touch(alive.id, t(20))).toBe(true); // an older beat changes nothing
        expect((await runs.get(alive.id))?.heartbeatAt).toEqual(t(90));

        const stale = await runs.listStale({ pendingBefore: t(50), runningBefore: t(50) });
        const ids = stale.map((r) => r.id);
        expect(ids).toEqual(expect.arrayContaining([pending.id, running.id]));
        expect(ids).not.toContain(fresh.id);
        expect(ids).not.toContain(alive.id);

        await runs.markFinished(running.id, { status: 'failed' });
        expect(await runs.touch(running.id, t(200))).toBe(false);
      });
    });

    describe('notices', () => {
      it('records each kind once per run', async () => {
        const runId = randomUUID();
        expect(await notices.sent(runId, 'failure')).toBe(false);
        expect(await notices.record(runId, 'failure')).toBe(true);
        expect(await notices.record(runId, 'failure')).toBe(false);
        expect(await notices.sent(runId, 'failure')).toBe(true);
        expect(await notices.sent(runId, 'queue_position')).toBe(false);
      });
    });

    describe('wakeups', () => {
      it('keeps parallel schedules of one thread within the budget since the last human message', async () => {
        const threadId = randomUUID();
        const schedule = (second: number) =>
          wakeups.scheduleWithin(
            {
              id: randomUUID(),
              threadId,
              prompt: 'check CI',
              dueAt: t(1000),
              createdAt: t(second),
            },
            t(5),
            3,
          );
        await schedule(1); // before the human message: not counted
        const results = await Promise.all([6, 7, 8, 9, 10].map(schedule));
        expect(results.filter((r) => r.wakeup !== null)).toHaveLength(3);
        expect(results.every((r) => r.counted <= 3)).toBe(true);
        expect(await wakeups.countSince(threadId, t(5))).toBe(3);
        expect(await wakeups.countSince(threadId, null)).toBe(4);
      });

      it('lists due wakeups and fires each once', async () => {
        const threadId = randomUUID();
        const id = randomUUID();
        const later = randomUUID();
        await wakeups.scheduleWithin({ id, threadId, prompt: 'p', dueAt: t(100) }, null, 10);
        await wakeups.scheduleWithin({ id: later, threadId, prompt: 'p', dueAt: t(500) }, null, 10);
        const due = (await wakeups.due(t(200))).map((w) => w.id);
        expect(due).toContain(id);
        expect(due).not.toContain(later);
        expect(await wakeups.markFired(id, t(201))).toBe(true);
        expect(await wakeups.markFired(id, t(202))).toBe(false);
        expect((await wakeups.due(t(200))).map((w) => w.id)).not.toContain(id);
      });

      it('withdraws a wakeup not fired yet, once: it is no longer due and never fires', async () => {
        const threadId = randomUUID();
        const [kept, withdrawn] = [randomUUID(), randomUUID()];
        await wakeups.scheduleWithin({ id: kept, threadId, prompt: 'p', dueAt: t(100) }, null, 10);
        await wakeups.scheduleWithin(
          { id: withdrawn, threadId, prompt: 'p', dueAt: t(100) },
          null,
          10,
        );
        expect(await wakeups.withdraw(withdrawn, t(150))).toBe(true);
        expect(await wakeups.withdraw(withdrawn, t(151))).toBe(false);
        const due = (await wakeups.due(t(200))).map((w) => w.id);
        expect(due).toContain(kept);
        expect(due).not.toContain(withdrawn);
        expect(await wakeups.markFired(kept, t(201))).toBe(true);
        expect(await wakeups.withdraw(kept, t(202))).toBe(false);
      });
    });

    describe('CI watches', () => {
      const HEAD = 'a'.repeat(40);
      let watches: CiWatchRepository;
      beforeAll(() => {
        watches = new CiWatchRepository(database.db);
      });

      const newWatch = (number: number, agentHead?: string) =>
        watches.start({
          id: randomUUID(),
          owner: 'Acme',
          repo: 'Widgets',
          number,
          url: `https://github.com/Acme/Widgets/pull/${number}`,
          threadId: randomUUID(),
          asked: false,
          agentHead,
          at: t(0),
        });
      const state = (fields: Partial<CiWatchSave>): CiWatchSave => ({
        headSha: HEAD,
        checks: [],
        mergeable: null,
        fixRuns: 0,
        limitAnnounced: false,
        handledKeys: [],
        rerunsAtHead: 0,
        greenFingerprint: null,
        greenSince: null,
        announcedHead: null,
        retryAt: null,
        ...fields,
      });

      it('keeps one watch per pull request; a restart reactivates it and keeps its counts', async () => {
        const number = 1000 + Math.floor(Math.random() * 1e6);
        const first = await newWatch(number, HEAD);
        expect(first).toMatchObject({ pullRequestKey: `acme/widgets#${number}`, active: true });
        const saved = await watches.saveState(first.id, first.version, state({ fixRuns: 3 }));
        expect(saved?.fixRuns).toBe(3);
        expect(await watches.stop(first.id, 'human_commit_at_head', t(1))).toBe(true);
        expect(await watches.stop(first.id, 'again', t(2))).toBe(false);

        const again = await newWatch(number, 'b'.repeat(40));
        expect(again).toMatchObject({
          id: first.id,
          active: true,
          stoppedReason: null,
          fixRuns: 3,
          agentHeads: [HEAD, 'b'.repeat(40)],
        });
        expect((await watches.findByPullRequest('ACME', 'widgets', number))?.id).toBe(first.id);
        expect(
          (await watches.activeAtHead('acme', 'widgets', 'b'.repeat(40))).map((w) => w.id),
        ).toEqual([first.id]);
      });

      it('writes an evaluation only at the version it read: of two at once, one wins', async () => {
        const watch = await newWatch(2_000_000 + Math.floor(Math.random() * 1e6));
        const results = await Promise.all(
          [1, 2].map((n) => watches.saveState(watch.id, watch.version, state({ fixRuns: n }))),
        );
        expect(results.filter((r) => r !== null)).toHaveLength(1);
        expect(await watches.addAgentHead(watch.id, HEAD)).toBe(true);
        expect(await watches.addAgentHead(watch.id, HEAD)).toBe(true);
        expect((await watches.get(watch.id))?.agentHeads).toEqual([HEAD]);
      });

      it('lists the watches due for another look, and the toggle restarts a stopped one', async () => {
        const watch = await newWatch(3_000_000 + Math.floor(Math.random() * 1e6));
        await watches.saveState(watch.id, watch.version, state({ retryAt: t(100) }));
        expect((await watches.due(t(99), 100)).map((w) => w.id)).not.toContain(watch.id);
        expect((await watches.due(t(100), 100)).map((w) => w.id)).toContain(watch.id);
        await watches.stop(watch.id, 'asked', t(101));
        expect((await watches.due(t(200), 100)).map((w) => w.id)).not.toContain(watch.id);
        expect(await watches.setAutofix(watch.id, true)).toBe(true);
        expect(await watches.get(watch.id)).toMatchObject({ active: true, autofix: true });
      });
    });
  },
);
