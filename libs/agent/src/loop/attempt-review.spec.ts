import { describe, expect, it } from '@jest/globals';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { AIMessageChunk } from '@langchain/core/messages';
import {
  parseChoice,
  parseScore,
  reviewChooser,
  reviewScorer,
  type ReviewModel,
} from './attempt-review.js';
import type { RecordedAttempt } from './retry-select.js';

/** A model double that answers from a list and records what it was sent; running out fails. */
function answering(...texts: string[]): ReviewModel & { calls: BaseLanguageModelInput[] } {
  const calls: BaseLanguageModelInput[] = [];
  const invoke: ReviewModel['invoke'] = (input) => {
    calls.push(input);
    const text = texts.shift();
    if (text === undefined) throw new Error('the review model was called more often than scripted');
    return Promise.resolve(new AIMessageChunk(text));
  };
  return { calls, invoke };
}

function attempt(index: number, submission: string | null, exitStatus = 'submitted') {
  return {
    index,
    submission,
    exitStatus,
    score: null,
    trajectory: null,
    stats: { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 3 },
  } satisfies RecordedAttempt<null>;
}

describe('parseScore', () => {
  it.each([
    ['Looks right.\n8', 8],
    ['Mostly fine, 2 nits.\nScore: 7.5', 7.5],
    ['score 3 then 9', 9],
    ['Great.\n\n  10  \n', 10],
  ])('reads the last number on the last line of %j', (text, expected) => {
    expect(parseScore(text, [0, 10])).toBe(expected);
  });

  it.each(['8\nno number here', 'score: 11', 'score: -1', ''])('has no score in %j', (text) => {
    expect(parseScore(text, [0, 10])).toBeNull();
  });
});

describe('parseChoice', () => {
  it('takes the last integer of the answer', () => {
    expect(parseChoice('Solution 0 is close, but 2 handles the edge case. Answer: 1')).toBe(1);
    expect(parseChoice('none of them')).toBeNull();
  });
});

describe('reviewScorer', () => {
  it('averages the valid samples and ignores the invalid ones', async () => {
    const model = answering('6', 'no idea', '9');
    const score = await reviewScorer<null>({ model, task: 'fix it', samples: 3 })(
      attempt(0, 'diff --git a/x b/x'),
    );
    expect(score).toBe(7.5);
    expect(model.calls).toHaveLength(3);
    expect(JSON.stringify(model.calls[0])).toContain('diff --git a/x b/x');
  });

  it('does not review an attempt that submitted nothing', async () => {
    const model = answering('10');
    expect(await reviewScorer<null>({ model, task: 't', samples: 1 })(attempt(0, null))).toBeNull();
    expect(model.calls).toHaveLength(0);
  });

  it('gives no score when no sample had a valid one', async () => {
    const model = answering('maybe', 'score: 42');
    expect(await reviewScorer<null>({ model, task: 't', samples: 2 })(attempt(0, 'p'))).toBeNull();
  });
});

describe('reviewChooser', () => {
  it('shows each candidate patch (an oversized one as invalid) and reads the choice', async () => {
    const model = answering('The second one. 1');
    const choice = await reviewChooser<null>({ model, task: 'fix it' })([
      attempt(0, 'x'.repeat(6000)),
      attempt(1, 'diff --git a/ok b/ok'),
    ]);
    expect(choice).toBe(1);
    const sent = JSON.stringify(model.calls[0]);
    expect(sent).toContain('Solution invalid.');
    expect(sent).toContain('diff --git a/ok b/ok');
  });
});
