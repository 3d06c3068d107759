import { StartRunV1 } from '@caravel/contracts';
import type { Executor, RunQueueRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import type { RunNotifierService } from '../replies/run-notifier.service.js';
import type { DispatchConfig } from '../dispatch.config.js';
import { AdmissionService, type RunRequest } from './admission.service.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const command = StartRunV1.fixture().data;
const request: RunRequest = { command, repositoryKey: 'o/r', userKey: 'synthetic:u' };

/** A run the queue admitted earlier: a repeated request finds it so. */
const admitted = factory.queuedRun({
  runId: command.runId,
  threadId: command.threadId,
  repositoryKey: 'o/r',
  userKey: 'synthetic:u',
  command,
  admittedAt: NOW,
});

/** The queue of one admitted run whose start publication can be claimed `claims` times. */
function queueWith(claims: boolean[]) {
  const released: string[] = [];
  const queue = strictMock<RunQueueRepository>(
    {
      exclusive: (work) => work(strictMock<Executor>({}, 'transaction')),
      enqueue: () => Promise.resolve(false),
      get: () => Promise.resolve(admitted),
      claimStartPublication: () => Promise.resolve(claims.shift() ?? false),
      releaseStartPublication: (runId: string) => {
        released.push(runId);
        return Promise.resolve();
      },
    },
    'queue',
  );
  return { queue, released };
}

function admission(queue: RunQueueRepository, publish: () => Promise<PublishAck>) {
  const published: unknown[] = [];
  const publisher = strictMock<MessagePublisher>(
    {
      publish: (definition, data) => {
        expect(definition).toBe(StartRunV1);
        published.push(data);
        return publish();
      },
    },
    'publisher',
  );
  const config = { dispatch: { maxActiveRuns: 8, maxActiveRunsPerRepository: 4 } };
  const service = new AdmissionService(
    queue,
    publisher,
    strictMock<RunNotifierService>({}, 'notifier'),
    config as DispatchConfig,
    { now: () => NOW },
  );
  return { service, published };
}

const accepted = () =>
  Promise.resolve<PublishAck>({ stream: 'COMMANDS', sequence: 1, duplicate: false });

describe('AdmissionService', () => {
  it('publishes the start of an admitted run once, however often the run is requested again', async () => {
    const { queue } = queueWith([true, false, false]);
    const { service, published } = admission(queue, accepted);

    for (let i = 0; i < 3; i += 1) await service.request(request, { source: 'dispatch' });

    expect(published).toEqual([command]);
  });

  it('gives the claim back when the start could not be published, so a retry publishes it', async () => {
    const { queue, released } = queueWith([true, true]);
    let fail = true;
    const { service, published } = admission(queue, () => {
      if (!fail) return accepted();
      fail = false;
      return Promise.reject(new Error('bus down'));
    });

    await expect(service.request(request, { source: 'dispatch' })).rejects.toThrow('bus down');
    await service.request(request, { source: 'dispatch' });

    expect(released).toEqual([command.runId]);
    expect(published).toEqual([command, command]);
  });
});
