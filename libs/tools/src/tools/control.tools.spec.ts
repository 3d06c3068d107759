import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { resolveToolOptions } from '../core/tool-options.js';
import { InMemoryScm, RecordingReplyChannel } from '../testing/fake-ports.js';
import { createTempRepo, type TempRepo } from '../testing/temp-repo.js';
import { commitAndOpenPrTool } from './commit-and-open-pr.tool.js';
import { confirmingCompletionTool, noOpTool } from './completion.tools.js';
import { replyToUserTool } from './reply-to-user.tool.js';
import { submitTool } from './submit.tool.js';

describe('submit', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = createTempRepo({ 'a.txt': 'one\n' });
  });
  afterEach(() => repo.remove());

  it('returns the working tree diff, untracked files included, as the submission', async () => {
    repo.write('a.txt', 'two\n');
    repo.write('new.txt', 'fresh\n');
    const result = await submitTool(repo.sandbox, resolveToolOptions()).invoke({});
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.output.submission).toBe(result.output.diff);
    expect(result.output.diff).toContain('-one\n+two');
    expect(result.output.diff).toContain('+++ b/new.txt');
    expect(result.observation).toBe(result.output.diff);
  });

  it('submits null when nothing changed', async () => {
    const result = await submitTool(repo.sandbox, resolveToolOptions()).invoke({});
    expect(result).toMatchObject({ ok: true, output: { diff: '', submission: null } });
    expect(result.observation).toContain('no changes');
  });

  it('is the run-ending tool and takes no arguments', async () => {
    const tool = submitTool(repo.sandbox, resolveToolOptions());
    expect(tool.effect).toBe('finish');
    expect(await tool.invoke({ force: true })).toMatchObject({ error: { code: 'BAD_REQUEST' } });
  });
});

describe('no_op and confirming_completion', () => {
  it('acknowledge with the reason or summary given', async () => {
    expect(await noOpTool().invoke({ reason: ' not for me ' })).toEqual({
      ok: true,
      output: { acknowledged: true, note: 'not for me' },
      observation: 'No action was taken.',
    });
    expect(await confirmingCompletionTool().invoke({})).toMatchObject({
      ok: true,
      output: { note: null },
      observation: 'Completion confirmed.',
    });
  });
});

describe('reply_to_user', () => {
  it('posts the text on the injected channel', async () => {
    const channel = new RecordingReplyChannel();
    const result = await replyToUserTool(channel).invoke({ text: 'Done: see the PR.' });
    expect(channel.sent).toEqual(['Done: see the PR.']);
    expect(result).toMatchObject({ ok: true, output: { messageId: 'msg-1' } });
  });

  it('refuses an empty message without posting', async () => {
    const channel = new RecordingReplyChannel();
    const result = await replyToUserTool(channel).invoke({ text: '   ' });
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(channel.sent).toEqual([]);
  });
});

describe('commit_and_open_pr', () => {
  const input = { commit_message: 'Fix the bug', title: 'Fix the bug', body: 'Details.' };

  it('commits, pushes and opens a draft pull request', async () => {
    const scm = new InMemoryScm();
    const result = await commitAndOpenPrTool(scm).invoke(input);
    expect(result).toMatchObject({
      ok: true,
      output: {
        action: 'opened',
        branch: 'caravel/thread-1',
        pullRequest: { number: 1, draft: true },
      },
    });
    expect(scm.commits).toEqual(['Fix the bug']);
    expect(result.observation).toContain('opened draft pull request #1');
  });

  it('updates the open pull request on a second call instead of opening another', async () => {
    const scm = new InMemoryScm();
    const tool = commitAndOpenPrTool(scm);
    await tool.invoke(input);
    const second = await tool.invoke({
      ...input,
      commit_message: 'Address review',
      title: 'Fix v2',
    });
    expect(second).toMatchObject({
      ok: true,
      output: { action: 'updated', pullRequest: { number: 1 } },
    });
    expect(scm.pullRequests).toHaveLength(1);
    expect(scm.pullRequests[0]).toMatchObject({ title: 'Fix v2' });
    expect(scm.commits).toEqual(['Fix the bug', 'Address review']);
  });

  it('still opens the pull request when a retry finds nothing new to commit', async () => {
    const scm = new InMemoryScm();
    scm.clean = true;
    const result = await commitAndOpenPrTool(scm).invoke(input);
    expect(result).toMatchObject({ ok: true, output: { commitSha: null, action: 'opened' } });
    expect(result.observation).toContain('nothing new to commit');
  });

  it('rejects a missing title without touching the SCM', async () => {
    const scm = new InMemoryScm();
    const result = await commitAndOpenPrTool(scm).invoke({ commit_message: 'x', body: '' });
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(scm.commits).toEqual([]);
  });
});
