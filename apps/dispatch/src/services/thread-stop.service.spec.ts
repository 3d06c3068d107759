import { RunFinishedV1, StopThreadV1 } from '@caravel/contracts';
import type {
  BudgetPauseRepository,
  RunRepository,
  RunRow,
  RunStatus,
  ThreadMessageRepository,
  ThreadMessageRow,
  ThreadRepository,
  ThreadStopRepository,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { Bus, MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { jest } from '@jest/globals';
import type { RunNotifierService } from '../replies/run-notifier.service.js';
import type { InterruptNotifier } from './interrupt-notifier.js';
import { stopStep } from './stop-policy.js';
import { ThreadStopService } from './thread-stop.service.js';

const NOW = new Date('2026-12-02T05:00:00Z');
const stop = StopThreadV1.fixture();
const threadId = stop.data.threadId;

function setup(options: {
  active?: RunRow;
  stops?: ThreadMessageRow[];
  leaseHeld?: boolean;
  /** The runs whose budget pauses the thread's stop withdraws. */
  paused?: string[];
}) {
  const active = options.active;
  const withdraw = jest.fn((_stop: { threadId: string; by: string; at?: Date }) =>
    Promise.resolve(options.paused ?? []),
  );
  const announce = jest.fn(() => Promise.resolve('posted' as const));
  const notify = jest.fn((_threadId: string, _messageId: string) => Promise.resolve());
  const enqueue = jest.fn<ThreadMessageRepository['enqueue']>(() => Promise.resolve(true));
  const take = jest.fn(() => Promise.resolve([]));
  const markFinished = jest.fn(() => Promise.resolve(null));
  const record = jest.fn((_stop: { threadId: string; at: Date; by: string }) => Promise.resolve());
  const publish = jest.fn(() =>
    Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
  );
  const lease = options.leaseHeld
    ? {
        key: `thread.${threadId}`,
        holder: 'r',
        revision: 1,
        expiresAt: new Date(NOW.getTime() + 5_000),
      }
    : null;
  const service = new ThreadStopService(
    strictMock<ThreadRepository>(
      {
        get: jest.fn(() =>
          Promise.resolve(factory.thread({ id: threadId, activeRunId: active?.id ?? null })),
        ),
      },
      'threads',
    ),
    strictMock<RunRepository>(
      { get: jest.fn(() => Promise.resolve(active ?? null)), markFinished },
      'runs',
    ),
    strictMock<ThreadMessageRepository>(
      { waiting: jest.fn(() => Promise.resolve(options.stops ?? [])), take, enqueue },
      'messages',
    ),
    strictMock<InterruptNotifier>({ notify }, 'interrupts'),
    strictMock<RunNotifierService>({ announce }, 'notifier'),
    strictMock<MessagePublisher>({ publish }, 'publisher'),
    strictMock<Bus>(
      {
        leases: strictMock<Bus['leases']>({ get: jest.fn(() => Promise.resolve(lease)) }, 'leases'),
      },
      'bus',
    ),
    { now: () => NOW },
    strictMock<BudgetPauseRepository>({ withdraw }, 'pauses'),
    strictMock<ThreadStopRepository>({ record }, 'stops'),
  );
  return { service, announce, notify, enqueue, take, markFinished, publish, withdraw, record };
}

function run(status: RunStatus): RunRow {
  return factory.run({ threadId, status });
}

describe('stopStep', () => {
  it.each([
    [null, false, false, 'nothing'],
    ['running', false, false, 'interrupt'],
    ['running', true, false, 'nothing'],
    ['queued', false, true, 'interrupt'],
    ['queued', false, false, 'cancel'],
    ['waiting', false, false, 'cancel'],
    ['interrupted', false, false, 'nothing'],
    ['merged', false, false, 'nothing'],
  ] as const)(
    '%s run, already stopping %s, runner holds %s: %s',
    (status, stopping, held, step) => {
      expect(
        stopStep({ activeStatus: status, alreadyStopping: stopping, runnerHoldsThread: held }),
      ).toBe(step);
    },
  );
});

describe('ThreadStopService', () => {
  it('interrupts the active run through the interrupt path, with no follow-up and one acknowledgement', async () => {
    const active = run('running');
    const { service, enqueue, notify, take, announce, publish, markFinished } = setup({ active });

    expect(await service.onStop(stop)).toBe('interrupt');

    // What waits behind the run is dropped (taken by the stopped run), so nothing starts after it.
    expect(take).toHaveBeenCalledWith(threadId, active.id, ['message', 'command']);
    expect(enqueue).toHaveBeenCalledWith(
      expect.objectContaining({
        threadId,
        kind: 'stop',
        delivery: 'interrupt',
        author: 'slack:U024BE7LH',
      }),
    );
    const [{ id: stopId }] = enqueue.mock.calls[0]!;
    expect(notify).toHaveBeenCalledWith(threadId, stopId);
    expect(announce).toHaveBeenCalledTimes(1);
    expect(announce.mock.calls[0]).toEqual([
      threadId,
      expect.any(String),
      expect.stringMatching(/^Stopped\./),
    ]);
    // The runner ends it; dispatch publishes no ending of its own and never fails it.
    expect(publish).not.toHaveBeenCalled();
    expect(markFinished).not.toHaveBeenCalled();
  });

  it('cancels a waiting run: it ends interrupted and never starts', async () => {
    const active = run('waiting');
    const { service, publish, markFinished, enqueue, notify, announce } = setup({ active });

    expect(await service.onStop(stop)).toBe('cancel');

    expect(publish).toHaveBeenCalledWith(
      RunFinishedV1,
      expect.objectContaining({
        runId: active.id,
        outcome: 'interrupted',
        exitStatus: 'exit_interrupted',
      }),
      expect.objectContaining({ source: 'dispatch' }),
    );
    expect(markFinished).toHaveBeenCalledWith(
      active.id,
      expect.objectContaining({ status: 'interrupted' }),
    );
    expect(enqueue).not.toHaveBeenCalled();
    expect(notify).not.toHaveBeenCalled();
    expect(announce).toHaveBeenCalledTimes(1);
  });

  it('cancels a queued run no runner picked up, and interrupts one a runner holds', async () => {
    expect(await setup({ active: run('queued') }).service.onStop(stop)).toBe('cancel');
    expect(await setup({ active: run('queued'), leaseHeld: true }).service.onStop(stop)).toBe(
      'interrupt',
    );
  });

  it('does nothing, and says nothing, when nothing runs', async () => {
    const { service, take, enqueue, announce, publish, withdraw } = setup({});
    expect(await service.onStop(stop)).toBe('nothing');
    for (const effect of [take, enqueue, announce, publish]) expect(effect).not.toHaveBeenCalled();
    expect(withdraw).toHaveBeenCalledWith({ threadId, by: 'slack:U024BE7LH', at: NOW });
  });

  it.each([
    ['nothing runs', {}],
    ['a run is active', { active: run('running') }],
  ])(
    'records the stop with the time it was asked when %s, for a trigger handled after it',
    async (_case, options) => {
      const { service, record } = setup(options);
      await service.onStop(stop);
      expect(record).toHaveBeenCalledWith({
        threadId,
        at: new Date(stop.occurredAt),
        by: 'slack:U024BE7LH',
      });
    },
  );

  it('withdraws the budget pause an idle thread waits on, and says so once per paused run', async () => {
    const paused = run('interrupted');
    const { service, announce, withdraw, enqueue } = setup({ paused: [paused.id] });
    expect(await service.onStop(stop)).toBe('nothing');
    expect(withdraw).toHaveBeenCalledTimes(1);
    expect(announce.mock.calls).toEqual([
      [threadId, expect.any(String), expect.stringMatching(/^Stopped\./)],
    ]);
    expect(enqueue).not.toHaveBeenCalled();
  });

  it('withdraws them too when the thread still names its paused run as active', async () => {
    const { service, withdraw } = setup({ active: run('interrupted'), paused: ['x'] });
    expect(await service.onStop(stop)).toBe('nothing');
    expect(withdraw).toHaveBeenCalledTimes(1);
  });

  it('leaves budget pauses to the run when a run is active (its own ending decides)', async () => {
    const { service, withdraw } = setup({ active: run('running'), paused: ['x'] });
    expect(await service.onStop(stop)).toBe('interrupt');
    expect(withdraw).not.toHaveBeenCalled();
  });

  it('is a no-op when another stop already waits for the run to end', async () => {
    const earlier = factory.threadMessage({ threadId, kind: 'stop', delivery: 'interrupt' });
    const { service, enqueue, announce } = setup({ active: run('running'), stops: [earlier] });
    expect(await service.onStop(stop)).toBe('nothing');
    expect(enqueue).not.toHaveBeenCalled();
    expect(announce).not.toHaveBeenCalled();
  });
});
