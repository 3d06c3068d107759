import { describe, expect, it } from '@jest/globals';

import { markSurfaced } from '../model/transitions.js';
import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { recordReplies, type ThreadReply } from './replies.js';

const T1 = '2026-03-02T10:00:00.000Z';
const published = markSurfaced(aFinding(), {
  reviewId: '100',
  commentId: '200',
  threadId: 'PRRT_a',
  sha: sha('a'),
  threshold: 'medium',
  at: T0,
});
const ingested = aFinding({
  author: { kind: 'bot', login: 'coderabbitai[bot]', bot: 'coderabbit' },
  reports: [
    {
      author: { kind: 'bot', login: 'coderabbitai[bot]', bot: 'coderabbit' },
      commentId: '300',
      reviewId: null,
      threadId: 'PRRT_b',
      url: null,
      sha: null,
      at: T0,
    },
  ],
});

const reply = (overrides: Partial<ThreadReply>): ThreadReply => ({
  commentId: '201',
  inReplyToId: '200',
  author: { kind: 'person', login: 'ada' },
  body: 'This is intended: the list is never empty here.',
  createdAt: T1,
  ...overrides,
});

describe('recordReplies', () => {
  it('records a person reply on the finding of its thread and marks it for reassessment', () => {
    const result = recordReplies([published, ingested], [reply({})], T1);
    expect(result.changed).toHaveLength(1);
    expect(result.changed[0]).toMatchObject({
      id: published.id,
      recheck: ['reply'],
      interactions: [
        { kind: 'human_reply', commentId: '201', inReplyToId: '200', needsReassessment: true },
      ],
    });
    expect(result.findings[1]).toBe(ingested);
  });

  it('records a reply once per comment id, however often it is listed', () => {
    const once = recordReplies([published], [reply({}), reply({})], T1);
    expect(once.findings[0]?.interactions).toHaveLength(1);
    const again = recordReplies(once.findings, [reply({})], T1);
    expect(again.changed).toEqual([]);
    expect(again.findings[0]).toBe(once.findings[0]);
  });

  it('records bot replies as bot replies, in threads taken from other reviewers too (by thread id)', () => {
    const bot = { kind: 'bot' as const, login: 'cursor[bot]', bot: 'bugbot' };
    const result = recordReplies(
      [ingested],
      [reply({ commentId: '301', inReplyToId: '999', threadId: 'PRRT_b', author: bot })],
      T1,
    );
    expect(result.findings[0]?.interactions).toMatchObject([{ kind: 'bot_reply', author: bot }]);
  });

  it('leaves out Caravel own replies and reports replies in threads of no finding', () => {
    const result = recordReplies(
      [published],
      [
        reply({ commentId: '202', author: { kind: 'caravel' } }),
        reply({ commentId: '500', inReplyToId: '499' }),
      ],
      T1,
    );
    expect(result.changed).toEqual([]);
    expect(result.unmatched.map((r) => r.commentId)).toEqual(['500']);
  });

  it('marks a closed finding too: a reply may say the fix is not one', () => {
    const closed = {
      ...published,
      status: 'resolved' as const,
      resolution: { kind: 'code_removed' as const, sha: sha('b'), at: T0 },
    };
    expect(recordReplies([closed], [reply({})], T1).findings[0]?.recheck).toEqual(['reply']);
  });
});
