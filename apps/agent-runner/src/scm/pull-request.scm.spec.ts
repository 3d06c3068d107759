import type { SandboxBrokerClient } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import type { PullRequestDetails } from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { PullRequestScm } from './pull-request.scm.js';

const repository = { owner: 'acme', name: 'widgets' };

function pull(state: string): PullRequestDetails {
  return {
    number: 7,
    title: 'Parser',
    body: '',
    author: 'octocat',
    state,
    draft: false,
    url: 'https://github.com/acme/widgets/pull/7',
    head: { ref: 'fix-parser', sha: 'a'.repeat(40), repository },
    base: { ref: 'main', sha: 'b'.repeat(40) },
  };
}

/** The pull request's branch checked out; the broker records the pushes it is asked for. */
function workspace() {
  const pushes: unknown[] = [];
  const broker = strictMock<SandboxBrokerClient>(
    {
      push: (request) => {
        pushes.push(request);
        return Promise.resolve({
          pushed: true,
          origin: 'https://github.com/acme/widgets.git',
          commitSha: 'c0ffee',
        });
      },
    },
    'broker',
  );
  const checkedOut = strictMock<ThreadWorkspace>(
    { threadId: 't-1', branch: 'fix-parser', repository, broker },
    'workspace',
  );
  return { checkedOut, pushes };
}

describe('PullRequestScm', () => {
  it("pushes to the pull request's branch while it is open", async () => {
    const { checkedOut, pushes } = workspace();
    const scm = new PullRequestScm(checkedOut, pull('open'), () => Promise.resolve(pull('open')));
    expect(await scm.commitAndPush({ message: 'Fix' })).toEqual({
      branch: 'fix-parser',
      commitSha: 'c0ffee',
    });
    expect(pushes).toHaveLength(1);
    expect(await scm.findOpenPullRequest('fix-parser')).toMatchObject({ number: 7 });
  });

  it.each(['merged', 'closed'])(
    'commits and pushes nothing once the pull request was %s meanwhile, and says why',
    async (state) => {
      const { checkedOut, pushes } = workspace();
      const scm = new PullRequestScm(checkedOut, pull('open'), () => Promise.resolve(pull(state)));
      await expect(scm.commitAndPush({ message: 'Fix' })).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining(
          `Pull request #7 was ${state} while you worked, so nothing was committed or pushed to its branch fix-parser`,
        ),
      });
      expect(pushes).toEqual([]);
    },
  );

  it('pushes as before when the pull request cannot be read', async () => {
    const { checkedOut, pushes } = workspace();
    const scm = new PullRequestScm(checkedOut, pull('open'), () =>
      Promise.reject(new Error('GitHub answered 502')),
    );
    await scm.commitAndPush({ message: 'Fix' });
    expect(pushes).toHaveLength(1);
  });
});
