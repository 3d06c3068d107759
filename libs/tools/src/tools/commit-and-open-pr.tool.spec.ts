import { describe, expect, it } from '@jest/globals';
import type { PullRequestRef, ScmPort } from '../ports/scm.port.js';
import { InMemoryScm } from '../testing/fake-ports.js';
import { commitAndOpenPrTool, namesNoPullRequest } from './commit-and-open-pr.tool.js';

/** An SCM whose "pull request" is `standIn`, as a plain git remote's or an attempt's is. */
function standInScm(standIn: PullRequestRef['standIn'], url: string): ScmPort {
  const ref: PullRequestRef = { number: 0, url, draft: true, standIn };
  return {
    commitAndPush: () => Promise.resolve({ branch: 'caravel/t-1', commitSha: 'c0ffee'.repeat(6) }),
    findOpenPullRequest: () => Promise.resolve(null),
    openPullRequest: () => Promise.resolve(ref),
    updatePullRequest: () => Promise.resolve(ref),
  };
}

describe('commit_and_open_pr, per the preference of the person who asked', () => {
  const input = { commit_message: 'Fix it', title: 'Fix it', body: 'Details.' };

  it('opens the pull request ready for review when they prefer that, and says so', async () => {
    const scm = new InMemoryScm();
    const tool = commitAndOpenPrTool(scm, { draft: false });

    const result = await tool.invoke(input);

    expect(scm.pullRequests).toMatchObject([{ number: 1, draft: false, title: 'Fix it' }]);
    expect(result.observation).toContain('opened pull request #1 (ready for review)');
    expect(tool.description).toContain('open a pull request ready for review');
  });

  it('opens a draft by default and tells the model it will', async () => {
    const scm = new InMemoryScm();
    const tool = commitAndOpenPrTool(scm);

    const result = await tool.invoke(input);

    expect(scm.pullRequests).toMatchObject([{ number: 1, draft: true }]);
    expect(result.observation).toContain('opened draft pull request #1');
    expect(tool.description).toContain('open a draft pull request');
  });

  it('updates the open pull request as it is, whatever the preference', async () => {
    const scm = new InMemoryScm();
    await commitAndOpenPrTool(scm, { draft: true }).invoke(input);

    const second = await commitAndOpenPrTool(scm, { draft: false }).invoke({
      ...input,
      title: 'Fix it, v2',
    });

    expect(second).toMatchObject({ ok: true, output: { action: 'updated' } });
    expect(scm.pullRequests).toMatchObject([{ number: 1, draft: true, title: 'Fix it, v2' }]);
  });

  it('says a pushed branch is the result where the remote has no pull requests, naming none', async () => {
    const tool = commitAndOpenPrTool(standInScm('branch', '/srv/repo.git#caravel/t-1'));

    const result = await tool.invoke(input);

    expect(result.observation).toBe(
      "Committed c0ffeec0ffee and pushed caravel/t-1; the repository's remote has no pull requests, so the pushed branch stands for the draft pull request: /srv/repo.git#caravel/t-1",
    );
    expect(result.observation).not.toMatch(/#0|pull request #/);
    expect(namesNoPullRequest(result.observation)).toBe(true);
  });

  it("says an attempt's commit stays in its sandbox and nothing is opened until it is selected", async () => {
    const tool = commitAndOpenPrTool(standInScm('held', 'attempt 2'));

    const result = await tool.invoke(input);

    expect(result.observation).toBe(
      'Committed c0ffeec0ffee on caravel/t-1; nothing is pushed or opened for an attempt: its pull request is opened only if it is selected (attempt 2)',
    );
    expect(result.observation).not.toContain('pushed caravel');
    expect(namesNoPullRequest(result.observation)).toBe(true);
  });

  it('names a real pull request as one', async () => {
    const result = await commitAndOpenPrTool(new InMemoryScm()).invoke(input);
    expect(namesNoPullRequest(result.observation)).toBe(false);
  });
});
