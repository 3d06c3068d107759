import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { DeliveryRepository } from './delivery.repository.js';
import { InboxRepository } from './inbox.repository.js';
import { OutboxRepository } from './outbox.repository.js';
import { RunEventRepository } from './run-event.repository.js';
import { RunRepository } from './run.repository.js';
import { SandboxRepository } from './sandbox.repository.js';
import { ThreadMessageRepository } from './thread-message.repository.js';
import { UserProfileRepository } from './user-profile.repository.js';
import { ThreadRepository } from './thread.repository.js';

const t = (seconds: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

await describeEachDatabase('wave-1 repositories', openDatabase, (target) => {
  let database: Database;
  let threads: ThreadRepository;
  let runs: RunRepository;

  beforeAll(async () => {
    database = await target.open();
    threads = new ThreadRepository(database.db);
    runs = new RunRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const newThread = async (): Promise<string> => {
    const id = randomUUID();
    await threads.upsert({ id, source: 'github', title: 'Fix flaky test', at: t(0) });
    return id;
  };

  it('records a delivery once per delivery id and once per semantic key', async () => {
    const deliveries = new DeliveryRepository(database.db);
    const base = {
      source: 'slack' as const,
      threadId: randomUUID(),
      event: 'app_mention',
      payload: { text: 'hi', n: [1, 2] },
    };
    expect(
      await deliveries.record({
        ...base,
        id: randomUUID(),
        deliveryId: 'd-1',
        semanticKey: 'C1:171.1',
      }),
    ).toBe(true);
    expect(
      await deliveries.record({
        ...base,
        id: randomUUID(),
        deliveryId: 'd-1',
        semanticKey: 'C1:999',
      }),
    ).toBe(false);
    expect(
      await deliveries.record({
        ...base,
        id: randomUUID(),
        deliveryId: 'd-2',
        semanticKey: 'C1:171.1',
      }),
    ).toBe(false);
    expect(await deliveries.record({ ...base, id: randomUUID(), deliveryId: 'd-3' })).toBe(true);
    expect(await deliveries.record({ ...base, id: randomUUID(), deliveryId: 'd-4' })).toBe(true);
    const stored = await deliveries.findBySourceDelivery('slack', 'd-1');
    expect(stored).toMatchObject({ semanticKey: 'C1:171.1', payload: { text: 'hi', n: [1, 2] } });
    expect(await deliveries.get(stored?.id ?? '')).toEqual(stored);
    expect(stored?.receivedAt).toBeInstanceOf(Date);
  });

  it('deletes deliveries received before a cutoff, oldest first and at most a batch at a time', async () => {
    const deliveries = new DeliveryRepository(database.db);
    // Deliveries of a source no other test here writes, received years before any other.
    const source = 'jira';
    const at = (day: number) => new Date(Date.UTC(2020, 0, day));
    for (const day of [1, 2, 3, 20]) {
      await deliveries.record({
        id: randomUUID(),
        source,
        deliveryId: `day-${day}`,
        semanticKey: `comment:${day}`,
        threadId: randomUUID(),
        event: 'comment',
        payload: {},
        receivedAt: at(day),
      });
    }
    const kept = async () =>
      (
        await Promise.all(
          [1, 2, 3, 20].map((d) => deliveries.findBySourceDelivery(source, `day-${d}`)),
        )
      )
        .filter((row) => row !== null)
        .map((row) => row.deliveryId);

    expect(await deliveries.deleteReceivedBefore(at(10), 2)).toBe(2);
    expect(await kept()).toEqual(['day-3', 'day-20']);
    expect(await deliveries.deleteReceivedBefore(at(10), 2)).toBe(1);
    expect(await deliveries.deleteReceivedBefore(at(10), 2)).toBe(0);
    expect(await kept()).toEqual(['day-20']);
    // Its keys are free again: a delivery after retention is taken as new.
    expect(
      await deliveries.record({
        id: randomUUID(),
        source,
        deliveryId: 'day-1',
        semanticKey: 'comment:1',
        threadId: randomUUID(),
        event: 'comment',
        payload: {},
      }),
    ).toBe(true);
  });

  it('upserts threads without erasing stored fields, and lists them newest first', async () => {
    const id = randomUUID();
    await threads.upsert({
      id,
      source: 'linear',
      title: 'First',
      repositoryOwner: 'acme',
      repositoryName: 'api',
      at: t(1),
    });
    const again = await threads.upsert({ id, source: 'linear', at: t(2) });
    expect(again).toMatchObject({
      title: 'First',
      repositoryOwner: 'acme',
      repositoryName: 'api',
      status: 'idle',
    });
    expect(again.updatedAt).toEqual(t(2));
    expect(again.createdAt).toEqual(t(1));
    expect(await threads.get(id)).toEqual(again);
    expect(await threads.get(randomUUID())).toBeNull();
    const later = randomUUID();
    await threads.upsert({ id: later, source: 'linear', title: 'Later', at: t(3) });
    const listed = await threads.list({ limit: 2 });
    expect(listed.map((thread) => thread.id)).toEqual([later, id]);
    expect((await threads.list({ updatedBefore: t(3), limit: 1 }))[0]?.id).toBe(id);
  });

  it("keeps a thread's repository and settings for its later runs; later settings merge in", async () => {
    const id = randomUUID();
    const repository = { owner: 'acme', name: 'api', cloneUrl: '/srv/git/api.git' };
    await threads.upsert({
      id,
      source: 'slack',
      repository,
      options: { model: 'anthropic:claude-sonnet-4-5', reasoningEffort: 'high' },
    });
    await threads.upsert({ id, source: 'slack', options: {} });
    expect(await threads.get(id)).toMatchObject({
      repository,
      options: { model: 'anthropic:claude-sonnet-4-5', reasoningEffort: 'high' },
    });
    const changed = await threads.upsert({
      id,
      source: 'slack',
      options: { model: 'openai:gpt-5' },
    });
    expect(changed.options).toEqual({ model: 'openai:gpt-5', reasoningEffort: 'high' });
    expect(changed.repository).toEqual(repository);
  });

  it('sets thread status and active run, with a compare-and-set on the active run', async () => {
    const id = await newThread();
    const runId = randomUUID();
    expect(
      await threads.setStatus(id, {
        status: 'running',
        activeRunId: runId,
        expectedActiveRunId: null,
      }),
    ).toMatchObject({
      status: 'running',
      activeRunId: runId,
    });
    expect(
      await threads.setStatus(id, {
        status: 'running',
        activeRunId: randomUUID(),
        expectedActiveRunId: null,
      }),
    ).toBeNull();
    expect(
      await threads.setStatus(id, {
        status: 'idle',
        activeRunId: null,
        expectedActiveRunId: runId,
      }),
    ).toMatchObject({
      status: 'idle',
      activeRunId: null,
    });
    expect((await threads.list({ status: 'running' })).some((thread) => thread.id === id)).toBe(
      false,
    );
  });

  it("records a pull request thread's head, and says when there is no such thread", async () => {
    const id = await newThread();
    expect((await threads.get(id))?.headSha).toBeNull();
    expect(await threads.setHead(id, 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e')).toBe(true);
    expect(await threads.setHead(id, '34c5c7793cb3b279e22454cb6750c80560547b3a')).toBe(true);
    expect((await threads.get(id))?.headSha).toBe('34c5c7793cb3b279e22454cb6750c80560547b3a');
    expect(await threads.setHead(randomUUID(), '34c5c7793cb3b279e22454cb6750c80560547b3a')).toBe(
      false,
    );
  });

  it('creates one run per trigger and returns the existing run for a repeated trigger', async () => {
    const threadId = await newThread();
    const triggerId = randomUUID();
    const first = await runs.create({ id: randomUUID(), threadId, triggerId, createdAt: t(5) });
    expect(first.created).toBe(true);
    expect(first.run).toMatchObject({
      status: 'queued',
      summary: '',
      runner: null,
      startedAt: null,
    });
    const repeat = await runs.create({ id: randomUUID(), threadId, triggerId });
    expect(repeat).toEqual({ run: first.run, created: false });
    const reused = runs.create({ id: first.run.id, threadId, triggerId: randomUUID() });
    await expect(reused).rejects.toBeInstanceOf(AppError);
    await expect(reused).rejects.toMatchObject({ code: 'DUPLICATE' });
    expect(await runs.findByTrigger(triggerId)).toEqual(first.run);
  });

  it('marks runs started and finished and lists them by thread and by recency', async () => {
    const threadId = await newThread();
    const a = (
      await runs.create({ id: randomUUID(), threadId, triggerId: randomUUID(), createdAt: t(10) })
    ).run;
    const b = (
      await runs.create({ id: randomUUID(), threadId, triggerId: randomUUID(), createdAt: t(11) })
    ).run;
    expect(await runs.markStarted(a.id, { runner: 'runner-1', at: t(12) })).toMatchObject({
      status: 'running',
      runner: 'runner-1',
      startedAt: t(12),
    });
    const done = await runs.markFinished(a.id, {
      status: 'completed',
      exitStatus: 'submitted',
      summary: 'PR opened',
      at: t(13),
    });
    expect(done).toMatchObject({
      status: 'completed',
      exitStatus: 'submitted',
      summary: 'PR opened',
      finishedAt: t(13),
    });
    expect(await runs.get(a.id)).toEqual(done);
    // A start handled after the end (separate consumers) leaves the finished run alone.
    expect(await runs.markStarted(a.id, { runner: 'late', at: t(14) })).toBeNull();
    expect(await runs.get(a.id)).toEqual(done);
    expect(await runs.markStarted(randomUUID(), { runner: 'x' })).toBeNull();
    expect((await runs.listByThread(threadId)).map((run) => run.id)).toEqual([a.id, b.id]);
    const recent = await runs.listRecent({ limit: 100 });
    expect(recent.findIndex((run) => run.id === b.id)).toBeLessThan(
      recent.findIndex((run) => run.id === a.id),
    );
    expect((await runs.listRecent({ status: 'completed' })).map((run) => run.id)).toContain(a.id);
  });

  it('appends run events idempotently on id, numbers each thread in indexing order, and lists a thread from a time or a position', async () => {
    const events = new RunEventRepository(database.db);
    const threadId = randomUUID();
    const event = (sequence: number, id = randomUUID()) => ({
      id,
      threadId,
      type: 'step',
      stream: `EVENTS_${threadId}`,
      sequence,
      occurredAt: t(sequence),
      data: { sequence },
    });
    const first = event(1);
    expect(await events.append(first)).toBe(true);
    expect(await events.append(first)).toBe(false);
    await expect(events.append(event(1))).rejects.toMatchObject({ code: 'DUPLICATE' });
    expect(await events.append({ ...event(2), runId: randomUUID() })).toBe(true);
    expect(await events.append(event(3))).toBe(true);
    expect((await events.listByThread(threadId)).map((row) => row.sequence)).toEqual([1, 2, 3]);
    expect((await events.listByThread(threadId)).map((row) => row.position)).toEqual([1, 2, 3]);
    expect(
      (await events.listByThread(threadId, { from: t(2) })).map((row) => row.sequence),
    ).toEqual([2, 3]);
    expect(
      (await events.listByThread(threadId, { afterPosition: 2 })).map((row) => row.data),
    ).toEqual([{ sequence: 3 }]);
    expect(await events.listByThread(threadId, { limit: 1 })).toEqual([
      { ...first, runId: null, position: 1 },
    ]);
    // Sequence 5 indexed before 4 (another event type's consumer lagged): by position 4 comes
    // last, so a reader that has seen position 4 (sequence 5) and pages after it still gets it.
    expect(await events.append(event(5))).toBe(true);
    expect(await events.append({ ...event(4), occurredAt: t(2) })).toBe(true);
    expect(
      (await events.listByThread(threadId, { afterPosition: 3 })).map((row) => row.sequence),
    ).toEqual([5, 4]);
    expect(
      (await events.listByThread(threadId, { afterPosition: 4, limit: 2 })).map(
        (row) => row.sequence,
      ),
    ).toEqual([4]);
    // Another thread is numbered from 1; appends racing for one thread each get their own place.
    const other = randomUUID();
    await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        events.append({ ...event(100 + n), threadId: other, stream: `EVENTS_${other}` }),
      ),
    );
    expect(
      (await events.listByThread(other, { afterPosition: 0 })).map((row) => row.position),
    ).toEqual(Array.from({ length: 12 }, (_, n) => n + 1));
  });

  it("lists a run's events", async () => {
    const events = new RunEventRepository(database.db);
    const runId = randomUUID();
    await events.append({
      id: randomUUID(),
      threadId: randomUUID(),
      runId,
      type: 'done',
      stream: 'E',
      sequence: 77,
      occurredAt: t(1),
      data: null,
    });
    expect((await events.listByRun(runId)).map((row) => row.type)).toEqual(['done']);
  });

  it("finds a thread's latest step with a successful result of a tool", async () => {
    const events = new RunEventRepository(database.db);
    const threadId = randomUUID();
    const step = (sequence: number, type: string, results: object[]) => ({
      id: randomUUID(),
      threadId,
      type,
      stream: `EVENTS_${threadId}`,
      sequence,
      occurredAt: t(sequence),
      data: { step: sequence, results },
    });
    const opened = { name: 'commit_and_open_pr', status: 'success', content: 'first' };
    const failed = { name: 'commit_and_open_pr', status: 'error', content: 'push refused' };
    expect(await events.latestStepWithResult(threadId, 'commit_and_open_pr')).toBeNull();
    await events.append(step(1, 'evt.run.step', [{ name: 'bash', status: 'success' }, opened]));
    await events.append(step(2, 'evt.run.step', [{ ...opened, content: 'second' }]));
    await events.append(step(3, 'evt.run.step', [failed]));
    await events.append(step(4, 'evt.replay.step', [{ ...opened, content: 'replayed' }]));
    const latest = await events.latestStepWithResult(threadId, 'commit_and_open_pr');
    expect(latest?.data).toEqual({ step: 2, results: [{ ...opened, content: 'second' }] });
    expect(await events.latestStepWithResult(randomUUID(), 'commit_and_open_pr')).toBeNull();
  });

  it('binds a sandbox once per thread, touches and deletes it', async () => {
    const sandboxes = new SandboxRepository(database.db);
    const threadId = randomUUID();
    const bound = await sandboxes.bind({
      id: randomUUID(),
      threadId,
      provider: 'bwrap',
      externalId: 'sb-1',
      at: t(1),
    });
    expect(bound).toMatchObject({
      bound: true,
      sandbox: { status: 'ready', externalId: 'sb-1', lastUsedAt: t(1) },
    });
    const second = await sandboxes.bind({
      id: randomUUID(),
      threadId,
      provider: 'local',
      externalId: 'sb-2',
    });
    expect(second).toEqual({ sandbox: bound.sandbox, bound: false });
    expect(await sandboxes.touch(threadId, t(9))).toBe(true);
    expect((await sandboxes.getByThread(threadId))?.lastUsedAt).toEqual(t(9));
    expect(await sandboxes.delete(threadId)).toBe(true);
    expect(await sandboxes.delete(threadId)).toBe(false);
    expect(await sandboxes.touch(threadId)).toBe(false);
    expect(await sandboxes.getByThread(threadId)).toBeNull();
  });

  it('claims an inbox message once per consumer', async () => {
    const inbox = new InboxRepository(database.db);
    const messageId = randomUUID();
    expect(await database.transaction((trx) => inbox.claim('dispatch', messageId, trx))).toBe(true);
    expect(await database.transaction((trx) => inbox.claim('dispatch', messageId, trx))).toBe(
      false,
    );
    expect(await database.transaction((trx) => inbox.claim('reviewer', messageId, trx))).toBe(true);
    expect(await inbox.isProcessed('dispatch', messageId)).toBe(true);
    expect(await inbox.prune(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(2);
    expect(await inbox.isProcessed('dispatch', messageId)).toBe(false);
  });

  it('leaves nothing behind when the handler transaction with an inbox claim rolls back', async () => {
    const inbox = new InboxRepository(database.db);
    const outbox = new OutboxRepository(database.db);
    const messageId = randomUUID();
    const outboxId = randomUUID();
    const threadId = randomUUID();
    const handler = database.transaction(async (trx) => {
      expect(await inbox.claim('dispatch', messageId, trx)).toBe(true);
      await new ThreadRepository(database.db).upsert({ id: threadId, source: 'github' }, trx);
      await outbox.enqueue({ id: outboxId, subject: 's', pattern: 'p', envelope: { a: 1 } }, trx);
      throw new Error('side effect failed');
    });
    await expect(handler).rejects.toThrow('side effect failed');
    expect(await inbox.isProcessed('dispatch', messageId)).toBe(false);
    expect(await threads.get(threadId)).toBeNull();
    expect(
      (await outbox.fetchUnpublished({ limit: 1000 })).some((row) => row.id === outboxId),
    ).toBe(false);
    expect(await database.transaction((trx) => inbox.claim('dispatch', messageId, trx))).toBe(true);
  });

  it('enqueues outbox messages in a transaction, fetches unpublished ones and marks them', async () => {
    const outbox = new OutboxRepository(database.db);
    const [a, b] = [randomUUID(), randomUUID()];
    await database.transaction(async (trx) => {
      await outbox.enqueue(
        {
          id: a,
          subject: 'thread.x.cmd.start.v1',
          pattern: 'cmd.start',
          envelope: { id: a },
          createdAt: t(1),
        },
        trx,
      );
      await outbox.enqueue(
        {
          id: b,
          subject: 'thread.x.cmd.start.v1',
          pattern: 'cmd.start',
          envelope: [b],
          createdAt: t(2),
        },
        trx,
      );
    });
    const pending = await outbox.fetchUnpublished({ limit: 1000 });
    expect(
      pending.filter((row) => row.id === a || row.id === b).map((row) => row.envelope),
    ).toEqual([{ id: a }, [b]]);
    expect(await outbox.markFailed(a, 'nats down')).toBe(true);
    expect(await outbox.markFailed(a, 'nats still down')).toBe(true);
    expect(await outbox.markPublished(b, t(3))).toBe(true);
    expect(await outbox.markPublished(b, t(4))).toBe(false);
    const locked = await database.transaction((trx) =>
      outbox.fetchUnpublished({ limit: 1000, lock: true }, trx),
    );
    const failed = locked.find((row) => row.id === a);
    expect(failed).toMatchObject({ attempts: 2, lastError: 'nats still down', publishedAt: null });
    expect(locked.some((row) => row.id === b)).toBe(false);
  });

  it('queues follow-ups once and lets exactly one run take them, oldest first', async () => {
    const messages = new ThreadMessageRepository(database.db);
    const threadId = await newThread();
    const [first, second] = [randomUUID(), randomUUID()];
    const base = { threadId, author: 'github:octocat', trusted: true };
    expect(
      await messages.enqueue({ ...base, id: second, text: 'and the docs', receivedAt: t(2) }),
    ).toBe(true);
    expect(
      await messages.enqueue({ ...base, id: first, text: 'also fix the lint', receivedAt: t(1) }),
    ).toBe(true);
    expect(
      await messages.enqueue({ ...base, id: first, text: 'redelivered', receivedAt: t(3) }),
    ).toBe(false);
    expect((await messages.waiting(threadId)).map((m) => m.text)).toEqual([
      'also fix the lint',
      'and the docs',
    ]);
    const runId = randomUUID();
    const taken = await messages.take(threadId, runId);
    expect(taken.map((m) => [m.id, m.consumedByRun])).toEqual([
      [first, runId],
      [second, runId],
    ]);
    expect(await messages.take(threadId, randomUUID())).toEqual([]);
    expect(await messages.waiting(threadId)).toEqual([]);
  });

  it('keeps what a running agent claimed its own until the run settles by its checkpoint', async () => {
    const messages = new ThreadMessageRepository(database.db);
    const threadId = await newThread();
    const base = { threadId, author: 'slack:U1', trusted: true };
    const [held, lost, command, later] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await messages.enqueue({ ...base, id: held, text: 'also the docs', receivedAt: t(1) });
    await messages.enqueue({
      ...base,
      id: lost,
      text: 'stop',
      delivery: 'interrupt',
      receivedAt: t(2),
    });
    await messages.enqueue({ ...base, id: command, text: 'ls', kind: 'command', receivedAt: t(3) });
    const [run, other] = [randomUUID(), randomUUID()];
    const claimed = (rows: { id: string; fresh: boolean }[]) => rows.map((m) => [m.id, m.fresh]);

    expect(claimed(await messages.claim(threadId, run))).toEqual([
      [held, true],
      [lost, true],
      [command, true],
    ]);
    // Claimed is not waiting: no other run takes it, and it interrupts nobody.
    expect(await messages.waiting(threadId)).toEqual([]);
    expect(await messages.interruptWaiting(threadId)).toBe(false);
    expect(await messages.claim(threadId, other)).toEqual([]);
    await messages.enqueue({ ...base, id: later, text: 'and the tests', receivedAt: t(4) });
    // Claimed again: handed over again (no checkpoint holds it yet), with what came since.
    expect(claimed(await messages.claim(threadId, run))).toEqual([
      [held, false],
      [lost, false],
      [command, false],
      [later, true],
    ]);

    // The command is not held (its output never reached a checkpoint), yet it is not put back:
    // it ran, or may have, and must not run a second time.
    expect(await messages.settle(threadId, run, [held])).toBe(2);
    expect((await messages.waiting(threadId)).map((m) => m.id)).toEqual([lost, later]);
    expect(await messages.interruptWaiting(threadId)).toBe(true);
    expect(await messages.claim(threadId, run, ['command'])).toEqual([]);
    expect((await messages.take(threadId, other, ['message'])).map((m) => m.id)).toEqual([
      lost,
      later,
    ]);
    expect(await messages.settle(threadId, run, [])).toBe(0);

    // A stop takes for good what waits and what the stopped run claimed: its settle puts none back.
    const [claimedByStopped, waitingBehind] = [randomUUID(), randomUUID()];
    await messages.enqueue({ ...base, id: claimedByStopped, text: 'also x', receivedAt: t(5) });
    const stopped = randomUUID();
    await messages.claim(threadId, stopped);
    await messages.enqueue({ ...base, id: waitingBehind, text: 'and y', receivedAt: t(6) });
    expect((await messages.take(threadId, stopped)).map((m) => m.id)).toEqual([
      claimedByStopped,
      waitingBehind,
    ]);
    expect(await messages.settle(threadId, stopped, [])).toBe(0);
    expect(await messages.waiting(threadId)).toEqual([]);
  });

  it("saves a person's own model choice and replaces it on the next save", async () => {
    const profiles = new UserProfileRepository(database.db);
    const identity = `slack:U${randomUUID().slice(0, 8)}`;
    expect(await profiles.get(identity)).toBeNull();
    await profiles.save({ identity, model: 'openai:gpt-5', reasoningEffort: 'high', at: t(1) });
    const saved = await profiles.save({
      identity,
      model: 'anthropic:claude-sonnet-4-5',
      reasoningEffort: null,
      at: t(2),
    });
    expect(saved).toEqual({
      identity,
      model: 'anthropic:claude-sonnet-4-5',
      reasoningEffort: null,
      draftPullRequests: true,
      alwaysCreatePullRequests: null,
      defaultRepository: null,
      fallbackModel: null,
      autofixCi: null,
      subagentModel: null,
      updatedAt: t(2),
    });
    expect(await profiles.get(identity)).toEqual(saved);
  });

  it("keeps a person's pull-request preferences, draft and the team's policies by default", async () => {
    const profiles = new UserProfileRepository(database.db);
    const identity = `github:u${randomUUID().slice(0, 8)}`;
    const ready = await profiles.save({
      identity,
      model: null,
      reasoningEffort: null,
      draftPullRequests: false,
      alwaysCreatePullRequests: true,
      autofixCi: false,
    });
    expect(ready).toMatchObject({
      draftPullRequests: false,
      alwaysCreatePullRequests: true,
      autofixCi: false,
    });
    expect(await profiles.get(identity)).toEqual(ready);
    const reset = await profiles.save({ identity, model: null, reasoningEffort: null });
    expect(reset).toMatchObject({
      draftPullRequests: true,
      alwaysCreatePullRequests: null,
      autofixCi: null,
    });
  });

  it("keeps a person's commands for a running agent: a run of messages does not take them", async () => {
    const messages = new ThreadMessageRepository(database.db);
    const threadId = await newThread();
    const base = { threadId, author: 'synthetic:alice', trusted: true };
    const [note, command] = [randomUUID(), randomUUID()];
    await messages.enqueue({ ...base, id: note, text: 'also the docs', receivedAt: t(1) });
    await messages.enqueue({
      ...base,
      id: command,
      text: 'npm test',
      kind: 'command',
      receivedAt: t(2),
    });
    expect((await messages.waiting(threadId, ['message'])).map((m) => m.id)).toEqual([note]);
    expect((await messages.take(threadId, randomUUID(), ['message'])).map((m) => m.id)).toEqual([
      note,
    ]);
    const taken = await messages.take(threadId, randomUUID());
    expect(taken.map((m) => [m.id, m.kind])).toEqual([[command, 'command']]);
  });

  it('keeps follow-ups queued in one tick of the clock in the order they came', async () => {
    const messages = new ThreadMessageRepository(database.db);
    const threadId = await newThread();
    const texts = Array.from({ length: 20 }, (_, n) => `follow-up ${n}`);
    for (const text of texts) {
      await messages.enqueue({
        threadId,
        author: 'slack:U1',
        trusted: true,
        id: randomUUID(),
        text,
      });
    }
    expect((await messages.waiting(threadId)).map((m) => m.text)).toEqual(texts);
    expect((await messages.take(threadId, randomUUID())).map((m) => m.text)).toEqual(texts);
  });

  it('tells a run when a waiting follow-up asks to interrupt it, until a run takes it', async () => {
    const messages = new ThreadMessageRepository(database.db);
    const threadId = await newThread();
    const base = { threadId, author: 'slack:U1', trusted: true };
    await messages.enqueue({ ...base, id: randomUUID(), text: 'ci failed' });
    expect(await messages.interruptWaiting(threadId)).toBe(false);
    await messages.enqueue({ ...base, id: randomUUID(), text: 'stop', delivery: 'interrupt' });
    expect(await messages.interruptWaiting(threadId)).toBe(true);
    expect((await messages.waiting(threadId)).map((m) => m.delivery)).toEqual([
      'inject',
      'interrupt',
    ]);
    await messages.take(threadId, randomUUID());
    expect(await messages.interruptWaiting(threadId)).toBe(false);
  });
});
