import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { ActionGuard, ReadGuard } from '../auth/guards.js';
import { personCaller } from '../testing/callers.js';
import { visibleThreadsHidingFrom } from '../testing/visible-threads.js';
import type { ReplaysService } from '../services/replays.service.js';
import { ReplaysController } from './replays.controller.js';

const THREAD = '6f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f';
const RUN = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';

const person = personCaller();

function controller() {
  const asked: unknown[] = [];
  const replays = strictMock<ReplaysService>(
    {
      request: (threadId, request) => {
        asked.push({ threadId, ...request });
        return Promise.resolve({ replayId: RUN, runId: RUN, status: 'requested' });
      },
    },
    'replays',
  );
  return { replays: new ReplaysController(replays, visibleThreadsHidingFrom('mallory')), asked };
}

describe('/api/threads/:id/replays', () => {
  it('asks behind the ActionGuard and reads behind the ReadGuard', () => {
    expect(ROUTES.requestReplay).toMatchObject({ method: 'post', access: 'action', status: 202 });
    expect(ROUTES.listReplays).toMatchObject({ method: 'get', access: 'read' });
    const guards = (name: keyof ReplaysController) =>
      Reflect.getMetadata(GUARDS_METADATA, ReplaysController.prototype[name]) as unknown[];
    expect(guards('request')).toEqual([ActionGuard]);
    expect(guards('list')).toEqual([ReadGuard]);
    expect(guards('get')).toEqual([ReadGuard]);
  });

  it('asks as the signed-in person, whatever the body claims', async () => {
    const { replays, asked } = controller();
    await replays.request({ id: THREAD }, { author: 'mallory', runId: RUN }, person);
    expect(asked).toEqual([{ threadId: THREAD, runId: RUN, author: 'octocat' }]);
  });

  it('wants the person a machine token acts for, a thread id and a run id that is a UUID', async () => {
    const { replays, asked } = controller();
    const refused = { code: 'BAD_REQUEST' };
    await expect(replays.request({ id: THREAD }, {}, { kind: 'machine' })).rejects.toMatchObject(
      refused,
    );
    await expect(replays.request({ id: 'nope' }, {}, person)).rejects.toMatchObject(refused);
    await expect(
      replays.request({ id: THREAD }, { runId: 'latest' }, person),
    ).rejects.toMatchObject(refused);
    await expect(replays.get({ id: THREAD, replayId: 'x' }, person)).rejects.toMatchObject(refused);
    expect(asked).toEqual([]);
  });

  it('refuses a replay of a thread the person may not see as a missing thread, asking nothing', async () => {
    const { replays, asked } = controller();
    await expect(
      replays.request({ id: THREAD }, { runId: RUN }, personCaller('mallory')),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: `no thread ${THREAD}` });
    expect(asked).toEqual([]);
  });
});
