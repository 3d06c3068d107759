import { ManageBabySit, ScheduleThreadWakeup } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { RunDispatch } from './run-dispatch.js';

const THREAD = '0b7c54a4-9d4c-4c57-9a51-6f4f1f4c2d10';
const RUN = '5d0e2a57-0c9f-4f55-8d1e-2f8e0b3c4a61';

describe('RunDispatch', () => {
  it("asks dispatch for a wakeup on the run's thread subject and validates the answer", async () => {
    const sent: { subject: string; payload: unknown }[] = [];
    const bus: Pick<Bus, 'request'> = {
      request: <T>(subject: string, payload: unknown) => {
        sent.push({ subject, payload });
        return Promise.resolve({
          scheduled: true,
          wakeupId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
          dueAt: '2026-01-02T10:05:00.000Z',
          remaining: 9,
        } as T);
      },
    };
    const answer = await new RunDispatch(bus, { threadId: THREAD, runId: RUN }).schedule({
      delayMinutes: 5,
      prompt: 'check CI',
      idempotencyKey: 'k:1',
    });
    expect(answer).toMatchObject({ scheduled: true, remaining: 9 });
    expect(sent).toEqual([
      {
        subject: ScheduleThreadWakeup.subjectFor(THREAD),
        payload: {
          threadId: THREAD,
          runId: RUN,
          delayMinutes: 5,
          prompt: 'check CI',
          idempotencyKey: 'k:1',
        },
      },
    ]);
  });

  it("asks dispatch to watch a pull request's CI on the run's thread subject", async () => {
    const sent: { subject: string; payload: unknown }[] = [];
    const bus: Pick<Bus, 'request'> = {
      request: <T>(subject: string, payload: unknown) => {
        sent.push({ subject, payload });
        return Promise.resolve({
          watching: true,
          pullRequest: 'acme/api#7',
          message: 'watching acme/api#7',
        } as T);
      },
    };
    const url = 'https://github.com/acme/api/pull/7';
    const answer = await new RunDispatch(bus, { threadId: THREAD, runId: RUN }).manage({
      action: 'start',
      pullRequestUrl: url,
    });
    expect(answer).toEqual({
      watching: true,
      pullRequest: 'acme/api#7',
      message: 'watching acme/api#7',
    });
    expect(sent).toEqual([
      {
        subject: ManageBabySit.subjectFor(THREAD),
        payload: { threadId: THREAD, runId: RUN, action: 'start', pullRequestUrl: url },
      },
    ]);
  });

  it('refuses an answer that is not the contract', async () => {
    const bus: Pick<Bus, 'request'> = { request: <T>() => Promise.resolve({ ok: 1 } as T) };
    await expect(
      new RunDispatch(bus, { threadId: THREAD, runId: RUN }).schedule({
        delayMinutes: 1,
        idempotencyKey: 'k:1',
      }),
    ).rejects.toThrow(/dispatch\.wakeup response/);
  });
});
