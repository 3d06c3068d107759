import { SandboxRecreate } from '@caravel/contracts';
import type { ThreadRepository, ThreadRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { isAppError } from '@caravel/errors';
import type { Bus, MessagePublisher } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { ThreadActionsService } from './thread-actions.service.js';

const THREAD = '6f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f';

/** The service over one stored thread (or none) and a bus that records its requests. */
function service(thread: Partial<ThreadRow> | null) {
  const requests: { subject: string; body: unknown }[] = [];
  const threads = strictMock<ThreadRepository>(
    { get: () => Promise.resolve(thread ? factory.thread({ id: THREAD, ...thread }) : null) },
    'threads',
  );
  const bus = strictMock<Bus>(
    {
      request: <T>(subject: string, body: unknown) => {
        requests.push({ subject, body });
        const recreated = {
          threadId: THREAD,
          sandboxId: 'sbx-2',
          provider: 'bwrap',
          workdir: '/workspace',
          outcome: 'replaced',
          branch: 'caravel/6f1d2c3b',
          baseCommit: 'abc',
          origin: null,
        };
        return Promise.resolve(recreated as T);
      },
    },
    'bus',
  );
  const actions = new ThreadActionsService(
    threads,
    strictMock<MessagePublisher>({}, 'publisher'),
    bus,
  );
  return { actions, requests };
}

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (isAppError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ThreadActionsService.recreateSandbox', () => {
  it("asks the broker for a new sandbox on the thread's branch and repository", async () => {
    const { actions, requests } = service({
      activeRunId: null,
      repository: { owner: 'acme', name: 'widgets', cloneUrl: '/srv/widgets.git' },
    });

    await expect(actions.recreateSandbox(THREAD)).resolves.toMatchObject({ sandboxId: 'sbx-2' });
    expect(requests).toEqual([
      {
        subject: SandboxRecreate.subjectFor(THREAD),
        body: {
          threadId: THREAD,
          branch: 'caravel/6f1d2c3b',
          repository: { owner: 'acme', name: 'widgets', cloneUrl: '/srv/widgets.git' },
        },
      },
    ]);
  });

  it('refuses while a run works in the thread, and for an unknown thread, asking nothing', async () => {
    const busy = service({ activeRunId: 'run-7', repository: null });
    expect(await refusal(() => busy.actions.recreateSandbox(THREAD))).toMatch(
      /^CONFLICT: .*run in progress \(run-7\)/,
    );
    const missing = service(null);
    expect(await refusal(() => missing.actions.recreateSandbox(THREAD))).toMatch(/^NOT_FOUND/);
    expect([...busy.requests, ...missing.requests]).toEqual([]);
  });
});
