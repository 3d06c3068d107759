import type { ScmComment } from '@caravel/tools';
import { CrawlTally, isSubstantive, MIN_SUBSTANTIVE_COMMENTS } from './crawl-signal.js';

const BOT = 'caravel[bot]';
let id = 0;
const comment = (author: string, body: string, bot = false): ScmComment => ({
  id: (id += 1),
  author,
  body,
  bot,
});
const substantive = (author: string) =>
  comment(author, 'Please name this after what it holds, not its type.');

describe('isSubstantive', () => {
  it("keeps a person's comment of a few words, not a one-liner, a bot's or Caravel's own", () => {
    expect(isSubstantive(substantive('alice'), BOT)).toBe(true);
    expect(isSubstantive(comment('alice', 'LGTM'), BOT)).toBe(false);
    expect(isSubstantive(comment('alice', 'nit: typo here'), BOT)).toBe(false);
    expect(isSubstantive({ ...substantive('dependabot[bot]'), bot: true }, BOT)).toBe(false);
    expect(isSubstantive(substantive('Caravel[bot]'), BOT)).toBe(false);
  });

  it("keeps only the repository's own people when GitHub says who they are: the style becomes the reviewer's rules", () => {
    // Anyone may comment on a public repository's merged pull request.
    for (const association of ['NONE', 'FIRST_TIMER', 'FIRST_TIME_CONTRIBUTOR', 'CONTRIBUTOR']) {
      expect(isSubstantive({ ...substantive('stranger'), association }, BOT)).toBe(false);
    }
    for (const association of ['OWNER', 'MEMBER', 'COLLABORATOR']) {
      expect(isSubstantive({ ...substantive('alice'), association }, BOT)).toBe(true);
    }
  });
});

describe('the crawl stopping rule', () => {
  it('goes on while fewer than 8 substantive comments are held and merged pull requests remain', () => {
    const tally = new CrawlTally(BOT);
    tally.record(1, [substantive('alice'), comment('bob', 'LGTM'), substantive('bob')]);
    expect(tally.status(true)).toMatchObject({
      substantive: 2,
      pullRequestsRead: 1,
      done: false,
      reason: 'needs_more',
    });
  });

  it('stops at 8 substantive comments even with pull requests left', () => {
    const tally = new CrawlTally(BOT);
    for (let pr = 1; pr <= MIN_SUBSTANTIVE_COMMENTS / 2; pr += 1) {
      tally.record(pr, [substantive('alice'), substantive(`r${pr}`)]);
    }
    expect(tally.status(true)).toMatchObject({
      substantive: 8,
      done: true,
      reason: 'enough_signal',
    });
  });

  it('stops with what it has when the merged pull requests run out', () => {
    const tally = new CrawlTally(BOT);
    tally.record(1, [substantive('alice')]);
    expect(tally.status(false)).toMatchObject({
      substantive: 1,
      done: true,
      reason: 'pull_requests_exhausted',
    });
  });

  it('counts a pull request read twice once', () => {
    const tally = new CrawlTally(BOT);
    const comments = [substantive('alice'), substantive('bob')];
    tally.record(3, comments);
    expect(tally.record(3, comments)).toEqual([]);
    expect(tally.status(true).substantive).toBe(2);
    expect(tally.pullRequests()).toEqual([3]);
  });

  it('draws the style from the top 5 reviewers by substantive comments', () => {
    const tally = new CrawlTally(BOT);
    const authors = ['a', 'a', 'a', 'b', 'b', 'c', 'c', 'd', 'd', 'e', 'e', 'f'];
    tally.record(1, authors.map(substantive));
    expect(tally.topReviewers().map((r) => r.login)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(tally.comments().map((c) => c.comment.author)).not.toContain('f');
    expect(tally.comments()).toHaveLength(11);
  });
});
