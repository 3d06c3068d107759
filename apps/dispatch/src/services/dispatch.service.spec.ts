import { RunFinishedV1, StartRunV1, TriggerReceivedV1, runIdForTrigger } from '@caravel/contracts';
import type { RunRepository, RunRow, ThreadRepository, ThreadRow } from '@caravel/db';
import type { MessagePublisher } from '@caravel/messaging';
import { jest } from '@jest/globals';
import { DispatchService } from './dispatch.service.js';

/** A double whose every method must be stubbed: an unexpected call fails loudly. */
function strict<T extends object>(stubs: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(stubs, {
    get(target, key) {
      if (key in target) return target[key as keyof T];
      if (key === 'then') return undefined;
      throw new Error(`unexpected call: ${String(key)}`);
    },
  }) as T;
}

function run(overrides: Partial<RunRow> = {}): RunRow {
  return {
    id: 'r1',
    threadId: 't1',
    triggerId: 'g1',
    status: 'queued',
    exitStatus: null,
    summary: '',
    runner: null,
    createdAt: new Date(),
    startedAt: null,
    finishedAt: null,
    ...overrides,
  };
}

function thread(overrides: Partial<ThreadRow> = {}): ThreadRow {
  return {
    id: 't1',
    source: 'synthetic',
    title: '',
    repositoryOwner: null,
    repositoryName: null,
    status: 'running',
    activeRunId: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...overrides,
  };
}

describe('DispatchService', () => {
  const trigger = TriggerReceivedV1.fixture();
  const runId = runIdForTrigger(trigger.id);

  function setup(options: { created: RunRow; claimed: ThreadRow | null; current?: ThreadRow }) {
    const publish = jest.fn(() => Promise.resolve({ stream: 's', sequence: 1, duplicate: false }));
    const setStatus = jest.fn(() => Promise.resolve(options.claimed));
    const threads = strict<ThreadRepository>({
      upsert: jest.fn(() => Promise.resolve(thread())),
      setStatus,
      get: jest.fn(() => Promise.resolve(options.current ?? null)),
    });
    const create = jest.fn(() => Promise.resolve({ run: options.created, created: true }));
    const runs = strict<RunRepository>({ create });
    const publisher = strict<MessagePublisher>({ publish });
    return { service: new DispatchService(threads, runs, publisher), publish, setStatus, create };
  }

  it('starts the run of a trigger on an idle thread, with the run id as command id', async () => {
    const { service, publish, setStatus, create } = setup({
      created: run({ id: runId }),
      claimed: thread({ activeRunId: runId }),
    });
    await service.onTrigger(trigger);
    expect(create).toHaveBeenCalledWith({
      id: runId,
      threadId: trigger.data.threadId,
      triggerId: trigger.id,
    });
    expect(setStatus).toHaveBeenCalledWith(trigger.data.threadId, {
      status: 'running',
      activeRunId: runId,
      expectedActiveRunId: null,
    });
    expect(publish).toHaveBeenCalledTimes(1);
    const [definition, data, options] = publish.mock.calls[0] as unknown as [
      unknown,
      { prompt: string },
      { id: string; causationId: string },
    ];
    expect(definition).toBe(StartRunV1);
    expect(data.prompt).toBe(trigger.data.text);
    expect(options.id).toBe(runId);
    expect(options.causationId).toBe(trigger.id);
  });

  it('queues the run when another run holds the thread', async () => {
    const { service, publish } = setup({
      created: run({ id: runId }),
      claimed: null,
      current: thread({ activeRunId: 'someone-else' }),
    });
    await service.onTrigger(trigger);
    expect(publish).not.toHaveBeenCalled();
  });

  it('re-publishes the command when a redelivered trigger finds its run already holding the thread', async () => {
    const { service, publish } = setup({
      created: run({ id: runId }),
      claimed: null,
      current: thread({ activeRunId: runId }),
    });
    await service.onTrigger(trigger);
    expect(publish).toHaveBeenCalledTimes(1);
  });

  it('does nothing for a trigger whose run already went ahead', async () => {
    const { service, publish, setStatus } = setup({
      created: run({ id: runId, status: 'completed' }),
      claimed: null,
    });
    await service.onTrigger(trigger);
    expect(setStatus).not.toHaveBeenCalled();
    expect(publish).not.toHaveBeenCalled();
  });

  it('frees the thread only if the finished run still holds it', async () => {
    const setStatus = jest.fn(() => Promise.resolve(null));
    const markFinished = jest.fn(() => Promise.resolve(null));
    const service = new DispatchService(
      strict<ThreadRepository>({ setStatus }),
      strict<RunRepository>({ markFinished }),
      strict<MessagePublisher>({}),
    );
    const finished = RunFinishedV1.fixture();
    await service.onRunFinished(finished);
    expect(markFinished).toHaveBeenCalledWith(finished.data.runId, {
      status: 'completed',
      exitStatus: 'submitted',
      summary: finished.data.summary,
    });
    expect(setStatus).toHaveBeenCalledWith(finished.data.threadId, {
      status: 'idle',
      activeRunId: null,
      expectedActiveRunId: finished.data.runId,
    });
  });
});
