import { describe, expect, it } from '@jest/globals';
import { RunFinishedV1 } from '@caravel/contracts';
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

  it("carries the coded reason of the failure and its files, which dispatch's reply explains", async () => {
    const record = new PublishRecord();
    const refused = new AppError(
      'FORBIDDEN',
      'GitHub refused the push because it changes workflow files',
      { details: { reason: 'workflow_permission', paths: ['.github/workflows/ci.yml'] } },
    );
    const scm = strictMock<ScmPort>({ commitAndPush: () => Promise.reject(refused) }, 'scm');
    await expect(record.track(scm).commitAndPush({ message: 'Fix' })).rejects.toBe(refused);

    expect(record.conclude(SUBMITTED)).toEqual({
      exitStatus: 'submitted (exit_unpublished)',
      submission: '+fix',
      observation: expect.stringMatching(
        /^The changes are not in a pull request: their last publish failed: GitHub refused the push because it changes workflow files \(FORBIDDEN\)\./,
      ),
      unpublished: { reason: 'workflow_permission', files: ['.github/workflows/ci.yml'] },
    });
  });

  it('takes the reason from the coded error only, its files bounded as the run.finished message carries them', async () => {
    const fails = (error: Error) =>
      strictMock<ScmPort>({ commitAndPush: () => Promise.reject(error) }, 'scm');
    const concluded = async (error: Error) => {
      const record = new PublishRecord();
      await expect(record.track(fails(error)).commitAndPush({ message: 'Fix' })).rejects.toBe(
        error,
      );
      return record.conclude(SUBMITTED);
    };
    const many = Array.from({ length: 25 }, (_, i) => `.github/workflows/w${i}.yml`);
    const long = `.github/workflows/${'x'.repeat(300)}.yml`;

    const bounded = await concluded(
      new AppError('FORBIDDEN', 'refused', {
        details: { reason: 'workflow_permission', paths: [long, 7, '', ...many] },
      }),
    );
    expect(RunFinishedV1.dataSchema.parse({ ...RunFinishedV1.fixture().data, ...bounded })).toEqual(
      expect.objectContaining({ unpublished: bounded.unpublished }),
    );
    expect(bounded.unpublished?.files).toHaveLength(20);
    expect(bounded.unpublished?.files[0]).toBe(`${long.slice(0, 199)}…`);
    expect(bounded.unpublished?.files[1]).toBe('.github/workflows/w0.yml');

    // A model's words (a plain error) and a reason that is not a code carry nothing.
    expect(
      await concluded(new Error('The changes are not in a pull request (workflow_permission)')),
    ).not.toHaveProperty('unpublished');
    expect(
      await concluded(new AppError('FORBIDDEN', 'x', { details: { reason: 'Read **this**' } })),
    ).not.toHaveProperty('unpublished');
    expect(
      await concluded(new AppError('FORBIDDEN', 'x', { details: { reason: 'push_changes_ci' } })),
    ).toMatchObject({ unpublished: { reason: 'push_changes_ci', files: [] } });
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
