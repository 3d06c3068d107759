import {
  RunFinishedV1,
  RunStartedV1,
  RunStepV1,
  StartRunV1,
  type MessageDefinition,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { Bus, Lease, LeaseStore, MessagePublisher } from '@caravel/messaging';
import type { PlatformRuntime } from '@caravel/platform';
import { jest } from '@jest/globals';
import { RunExecutorService } from './run-executor.service.js';

const lease: Lease = {
  key: 'k',
  holder: 'runner-1',
  revision: 1,
  expiresAt: new Date(Date.now() + 60_000),
};

function setup(options: { acquired: Lease | null; sandbox: (subject: string) => Promise<unknown> }) {
  const published: {
    definition: MessageDefinition;
    data: Record<string, unknown>;
    id: string | undefined;
  }[] = [];
  const release = jest.fn(() => Promise.resolve(true));
  const acquire = jest.fn(() => Promise.resolve(options.acquired));
  const leases = { acquire, release } as unknown as LeaseStore;
  const request = jest.fn(options.sandbox);
  const bus = { leases, request } as unknown as Bus;
  const publisher = {
    publish: (
      definition: MessageDefinition,
      data: Record<string, unknown>,
      opts: { id?: string },
    ) => {
      published.push({ definition, data, id: opts.id });
      return Promise.resolve({ stream: 's', sequence: published.length, duplicate: false });
    },
  } as unknown as MessagePublisher;
  const runtime = { name: 'runner-1' } as PlatformRuntime;
  return {
    executor: new RunExecutorService(bus, runtime, publisher),
    published,
    release,
    acquire,
    request,
  };
}

describe('RunExecutorService (no-op run)', () => {
  const command = StartRunV1.fixture();
  const heartbeat = () => Promise.resolve();

  it('refuses to run while another runner holds the thread, as a retryable error', async () => {
    const { executor, published } = setup({ acquired: null, sandbox: () => Promise.resolve({}) });
    await expect(executor.execute(command, heartbeat)).rejects.toMatchObject({
      code: 'LEASE_HELD',
      retryable: true,
    });
    expect(published).toEqual([]);
  });

  it('reports start, one step with the sandbox answer, and the end, under the thread lease', async () => {
    const { executor, published, release, acquire, request } = setup({
      acquired: lease,
      sandbox: () =>
        Promise.resolve({ threadId: command.data.threadId, provider: 'bwrap', alive: true }),
    });
    await executor.execute(command, heartbeat);
    expect(acquire).toHaveBeenCalledWith(`thread.${command.data.threadId}`, 'runner-1', 60_000);
    expect(request.mock.calls[0]?.[0]).toBe(`sandbox.${command.data.threadId}.ping`);
    expect(published.map((p) => p.definition)).toEqual([RunStartedV1, RunStepV1, RunFinishedV1]);
    expect(published[1]?.data['observation']).toBe('sandbox provider=bwrap alive=true');
    expect(published[2]?.data).toMatchObject({ outcome: 'completed', exitStatus: 'submitted' });
    expect(release).toHaveBeenCalledWith(lease);
  });

  it('derives event ids from the run, so a redelivered command re-publishes the same ids', async () => {
    const first = setup({
      acquired: lease,
      sandbox: () =>
        Promise.resolve({ threadId: command.data.threadId, provider: 'x', alive: false }),
    });
    const second = setup({
      acquired: lease,
      sandbox: () =>
        Promise.resolve({ threadId: command.data.threadId, provider: 'x', alive: false }),
    });
    await first.executor.execute(command, heartbeat);
    await second.executor.execute(command, heartbeat);
    expect(second.published.map((p) => p.id)).toEqual(first.published.map((p) => p.id));
    expect(new Set(first.published.map((p) => p.id)).size).toBe(3);
  });

  it('records a broker that does not answer as the observation instead of failing the run', async () => {
    const { executor, published } = setup({
      acquired: lease,
      sandbox: () => Promise.reject(new AppError('TIMEOUT', 'no reply on sandbox ping')),
    });
    await executor.execute(command, heartbeat);
    expect(published[1]?.data['observation']).toBe(
      'sandbox broker did not answer: no reply on sandbox ping',
    );
  });

  it('releases the lease when publishing fails', async () => {
    const { executor, release } = setup({ acquired: lease, sandbox: () => Promise.resolve({}) });
    (executor as unknown as { publisher: { publish: () => Promise<never> } }).publisher.publish =
      () => Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'bus down'));
    await expect(executor.execute(command, heartbeat)).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    expect(release).toHaveBeenCalledWith(lease);
  });
});
