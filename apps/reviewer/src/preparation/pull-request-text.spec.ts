import { describe, expect, it, jest } from '@jest/globals';
import type { ScmComment } from '@caravel/tools';
import {
  PULL_REQUEST_COMMENTS_READ,
  pullRequestTextOf,
  type PullRequestConversation,
} from './pull-request-text.js';

const comment = (id: number, author: string, body: string, bot = false): ScmComment => ({
  id,
  author,
  body,
  bot,
});

describe('pullRequestTextOf', () => {
  it("keeps people's comments and leaves out bots' and Caravel's own", async () => {
    const listIssueComments = jest.fn<PullRequestConversation['listIssueComments']>(() =>
      Promise.resolve([
        comment(1, 'alice', 'This fixes the empty-list crash; the retry is for #12.'),
        comment(2, 'codecov[bot]', 'Coverage -2%', true),
        comment(3, 'Caravel-Bot', 'Review: 2 findings.'),
        comment(4, 'bob', 'Should the retry be capped?'),
      ]),
    );
    const text = await pullRequestTextOf(
      { listIssueComments },
      { number: 7, title: 'Fix parser', body: 'Handles empty input.', author: 'alice' },
      'caravel-bot',
    );
    expect(listIssueComments).toHaveBeenCalledWith(7, PULL_REQUEST_COMMENTS_READ);
    expect(text).toEqual({
      title: 'Fix parser',
      body: 'Handles empty input.',
      author: 'alice',
      comments: [
        { author: 'alice', body: 'This fixes the empty-list crash; the retry is for #12.' },
        { author: 'bob', body: 'Should the retry be capped?' },
      ],
    });
  });

  it('cuts an overlong description and comment, and names a deleted author', async () => {
    const text = await pullRequestTextOf(
      { listIssueComments: () => Promise.resolve([comment(1, 'carol', 'log '.repeat(5_000))]) },
      { number: 8, title: 'Logs', body: 'x'.repeat(30_000), author: null },
      'caravel-bot',
    );
    expect(text.author).toBe('ghost');
    expect(text.body).toHaveLength(20_000 + '\n[… cut at 20000 characters]'.length);
    expect(text.body.endsWith('[… cut at 20000 characters]')).toBe(true);
    expect(text.comments[0]?.body.endsWith('[… cut at 4000 characters]')).toBe(true);
  });
});
