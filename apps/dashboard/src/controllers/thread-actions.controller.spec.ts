import { StopThreadV1 } from '@caravel/contracts';
import type { ThreadRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { isAppError } from '@caravel/errors';
import type { Bus, MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { ActionGuard } from '../auth/guards.js';
import { personCaller } from '../testing/callers.js';
import { visibleThreadsHidingFrom } from '../testing/visible-threads.js';
import { ThreadActionsService } from '../services/thread-actions.service.js';
import { ThreadActionsController } from './thread-actions.controller.js';

const THREAD = '6f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f';

function controller() {
  const publish = jest.fn((..._args: unknown[]) =>
    Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
  );
  const actions = new ThreadActionsService(
    strictMock<ThreadRepository>(
      { get: () => Promise.resolve(factory.thread({ id: THREAD })) },
      'threads',
    ),
    strictMock<MessagePublisher>({ publish }, 'publisher'),
    strictMock<Bus>({}, 'bus'),
  );
  return {
    stop: new ThreadActionsController(actions, visibleThreadsHidingFrom('mallory')),
    publish,
  };
}

const person = personCaller();

async function code(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'allowed';
  } catch (error) {
    return isAppError(error) ? error.code : 'not coded';
  }
}

describe('POST /api/threads/:id/stop', () => {
  it('is an action behind the ActionGuard (the machine token, or a person from a trusted origin)', () => {
    expect(ROUTES.threadStop).toMatchObject({ method: 'post', access: 'action', status: 202 });
    const guards = Reflect.getMetadata(GUARDS_METADATA, ThreadActionsController) as unknown[];
    expect(guards).toContain(ActionGuard);
  });

  it('publishes one stop request as the signed-in person, whatever the body claims', async () => {
    const { stop, publish } = controller();
    const { requestId } = await stop.stop({ id: THREAD }, { author: 'mallory' }, person);
    expect(publish).toHaveBeenCalledWith(
      StopThreadV1,
      { threadId: THREAD, source: 'synthetic', requestedBy: { externalId: 'octocat' }, requestId },
      { id: requestId },
    );
  });

  it('wants the person a machine token acts for, and a thread id', async () => {
    const { stop, publish } = controller();
    expect(await code(() => stop.stop({ id: THREAD }, {}, { kind: 'machine' }))).toBe(
      'BAD_REQUEST',
    );
    expect(await code(() => stop.stop({ id: 'nope' }, {}, person))).toBe('BAD_REQUEST');
    expect(publish).not.toHaveBeenCalled();
  });

  it('refuses every action in a thread the person may not see as a missing thread (404), publishing nothing', async () => {
    const { stop, publish } = controller();
    const mallory = personCaller('mallory');
    expect(await code(() => stop.stop({ id: THREAD }, {}, mallory))).toBe('NOT_FOUND');
    expect(await code(() => stop.act({ id: THREAD }, { text: 'ls' }, mallory))).toBe('NOT_FOUND');
    expect(await code(() => stop.chat({ id: THREAD }, { text: 'why?' }, mallory))).toBe(
      'NOT_FOUND',
    );
    expect(await code(() => stop.recreateSandbox({ id: THREAD }, mallory))).toBe('NOT_FOUND');
    expect(publish).not.toHaveBeenCalled();
  });
});
