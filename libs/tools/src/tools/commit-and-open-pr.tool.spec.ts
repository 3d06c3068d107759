import { describe, expect, it } from '@jest/globals';
import { InMemoryScm } from '../testing/fake-ports.js';
import { commitAndOpenPrTool } from './commit-and-open-pr.tool.js';

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
});
