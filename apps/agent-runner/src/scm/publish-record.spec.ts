import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import type { ScmPort } from '@caravel/tools';
import { PublishRecord } from './publish-record.js';

const PULL = { number: 3, url: 'https://github.example/acme/widgets/pull/3', draft: true };
const SUBMITTED = { exitStatus: 'submitted', submission: '+fix', observation: '+fix' } as const;

/** An SCM whose push is refused `refusals` times, then goes through. */
function refusingScm(refusals: number): ScmPort {
  let left = refusals;
  return strictMock<ScmPort>(
    {
      commitAndPush: () =>
        left-- > 0
          ? Promise.reject(new Error('! [remote rejected] caravel/t (pre-receive hook declined)'))
          : Promise.resolve({ branch: 'caravel/t', commitSha: 'c'.repeat(40) }),
      findOpenPullRequest: () => Promise.resolve(null),
      openPullRequest: () => Promise.resolve(PULL),
    },
    'scm',
  );
}

async function publish(scm: ScmPort): Promise<void> {
  await scm.commitAndPush({ message: 'Fix' });
  await scm.openPullRequest({ branch: 'caravel/t', title: 'Fix', body: '' });
}

describe('PublishRecord', () => {
  it('says a submission whose last publish failed is not in a pull request, and why', async () => {
    const record = new PublishRecord();
    await expect(publish(record.track(refusingScm(1)))).rejects.toThrow('remote rejected');

    expect(record.conclude(SUBMITTED)).toEqual({
      exitStatus: 'submitted (exit_unpublished)',
      submission: '+fix',
      observation: expect.stringContaining(
        'their last publish failed: ! [remote rejected] caravel/t (pre-receive hook declined)',
      ),
    });
  });

  it("names the coded reason of the failure first, which dispatch's reply explains", async () => {
    const record = new PublishRecord();
    const refused = new AppError(
      'FORBIDDEN',
      'GitHub refused the push because it changes workflow files',
      {
        details: { reason: 'workflow_permission' },
      },
    );
    const scm = strictMock<ScmPort>({ commitAndPush: () => Promise.reject(refused) }, 'scm');
    await expect(record.track(scm).commitAndPush({ message: 'Fix' })).rejects.toBe(refused);

    expect(record.conclude(SUBMITTED).observation).toMatch(
      /^The changes are not in a pull request \(workflow_permission\): their last publish failed: GitHub refused the push because it changes workflow files \(FORBIDDEN\)\./,
    );
  });

  it('forgets a failure once a later publish opened the pull request', async () => {
    const record = new PublishRecord();
    const scm = record.track(refusingScm(1));
    await expect(publish(scm)).rejects.toThrow();
    await publish(scm);

    expect(record.unpublishedReason()).toBeNull();
    expect(record.conclude(SUBMITTED)).toBe(SUBMITTED);
  });

  it('leaves every other ending as it is: no changes, or a run that did not end by submitting', async () => {
    const record = new PublishRecord();
    await expect(publish(record.track(refusingScm(1)))).rejects.toThrow();
    const empty = { exitStatus: 'submitted', submission: null, observation: '' } as const;
    const costly = { ...SUBMITTED, exitStatus: 'submitted (exit_cost)' } as const;

    expect(record.conclude(empty)).toBe(empty);
    expect(record.conclude(costly)).toBe(costly);
  });

  it('says the requester wanted a pull request when the always-create policy was not met', () => {
    const record = new PublishRecord();
    record.notePolicyUnmet();

    expect(record.conclude(SUBMITTED)).toMatchObject({
      exitStatus: 'submitted (exit_unpublished)',
      observation: expect.stringContaining('the person who asked always wants a pull request'),
    });
  });
});
