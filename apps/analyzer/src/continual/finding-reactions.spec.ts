import type { FindingOutcomeRow } from '@caravel/db';
import { GitHubApi, GitHubScmReader } from '@caravel/integrations';
import { FakeGitHub } from '@caravel/testing';
import { jest } from '@jest/globals';
import {
  tallyReactions,
  withReactions,
  type CommentReaction,
  type SurfacedFinding,
} from './finding-reactions.js';

const SINCE = new Date('2026-12-01T00:00:00Z');
const AFTER = '2026-12-01T08:00:00Z';
const reaction = (content: string, author: string, at = AFTER, bot = false): CommentReaction => ({
  content,
  author,
  bot,
  at,
});
const row = (id: string, resolution: string | null = null): FindingOutcomeRow => ({
  id,
  number: 5,
  category: 'naming',
  severity: 'low',
  title: 'Rename',
  status: resolution ? 'resolved' : 'open',
  resolution: resolution ? { kind: resolution } : null,
  interactions: [],
  updatedAt: new Date(AFTER),
});

describe('tallyReactions', () => {
  it("counts people's 👍/👎 since the version, each person once, not bots nor Caravel", () => {
    expect(
      tallyReactions(
        [
          reaction('+1', 'alice'),
          reaction('+1', 'alice'),
          reaction('-1', 'bob'),
          reaction('+1', 'carol', '2026-11-30T23:59:59Z'),
          reaction('-1', 'dependabot[bot]', AFTER, true),
          reaction('+1', 'Caravel[bot]'),
          reaction('heart', 'dave'),
        ],
        SINCE,
        'caravel[bot]',
      ),
    ).toEqual({ up: ['alice'], down: ['bob'] });
  });

  it('is null when no person reacted 👍 or 👎 since', () => {
    expect(tallyReactions([reaction('eyes', 'alice')], SINCE, 'caravel[bot]')).toBeNull();
  });
});

describe('withReactions', () => {
  it("adds reactions to the ledger's outcomes, makes a reacted open finding one, skips what it cannot read", async () => {
    const listed: Record<number, CommentReaction[]> = {
      11: [reaction('+1', 'alice')],
      12: [reaction('-1', 'bob')],
      13: [],
    };
    const reader = {
      listReviewCommentReactions: jest.fn((id: number) =>
        id === 14 ? Promise.reject(new Error('GitHub: 502')) : Promise.resolve(listed[id] ?? []),
      ),
      isCollaborator: () => Promise.resolve(true),
    };
    const warnings: string[] = [];
    const surfaced: SurfacedFinding[] = [
      { ...row('f_fixed', 'fixed_by_commit'), commentId: '11' },
      { ...row('f_open'), commentId: '12' },
      { ...row('f_quiet'), commentId: '13' },
      { ...row('f_unread'), commentId: '14' },
      { ...row('f_badid'), commentId: 'PRRC_x' },
    ];
    const weighed = await withReactions([row('f_fixed', 'fixed_by_commit')], surfaced, {
      reader,
      since: SINCE,
      botLogin: 'caravel[bot]',
      warn: (m) => void warnings.push(m),
    });
    expect(weighed.map((o) => [o.id, o.reactions])).toEqual([
      ['f_fixed', { up: ['alice'], down: [] }],
      ['f_open', { up: [], down: ['bob'] }],
    ]);
    expect(weighed[1]).not.toHaveProperty('commentId');
    expect(warnings).toEqual(['reactions on finding f_unread not read (Error: GitHub: 502)']);
    expect(reader.listReviewCommentReactions).toHaveBeenCalledTimes(4);
  });

  it("counts only the repository's collaborators, asking once per person", async () => {
    const isCollaborator = jest.fn((login: string) =>
      login === 'mallory'
        ? Promise.resolve(false)
        : login === 'eve'
          ? Promise.reject(new Error('GitHub: 403'))
          : Promise.resolve(true),
    );
    const downs = ['mallory', 'eve'].map((who) => reaction('-1', who));
    const reader = {
      listReviewCommentReactions: (id: number) =>
        Promise.resolve(id === 31 ? [...downs, reaction('+1', 'alice')] : downs),
      isCollaborator,
    };
    const warnings: string[] = [];
    const weighed = await withReactions(
      [],
      [
        { ...row('f_one'), commentId: '31' },
        { ...row('f_two'), commentId: '32' },
      ],
      { reader, since: SINCE, botLogin: 'caravel[bot]', warn: (m) => void warnings.push(m) },
    );
    expect(weighed).toEqual([
      expect.objectContaining({ id: 'f_one', reactions: { up: ['alice'], down: [] } }),
    ]);
    expect(isCollaborator).toHaveBeenCalledTimes(3);
    expect(warnings).toEqual([
      'whether eve collaborates not read (Error: GitHub: 403): not counted',
    ]);
  });

  it('reads reactions through the GitHub API (the fake GitHub, Octokit unmodified)', async () => {
    const github = new FakeGitHub().addRepository('acme/widgets').addUserToken('ghp_x', 'alice');
    github.collaborators.add('acme/widgets', 'alice');
    await github.start();
    try {
      github.state.reactions.push(
        { subject: 'acme/widgets:pulls-comment:21', content: '-1', login: 'alice', at: AFTER },
        { subject: 'acme/widgets:pulls-comment:21', content: '-1', login: 'ci[bot]', at: AFTER },
        { subject: 'acme/widgets:pulls-comment:21', content: '+1', login: 'stranger', at: AFTER },
        { subject: 'acme/widgets:pulls-comment:21', content: '+1', login: 'bob' },
        { subject: 'acme/widgets:issues-comment:21', content: '+1', login: 'carol', at: AFTER },
      );
      const api = new GitHubApi({ baseUrl: github.origin, tokens: () => Promise.resolve('ghp_x') });
      const reader = new GitHubScmReader(api, { owner: 'acme', name: 'widgets' });
      const weighed = await withReactions([], [{ ...row('f_x'), commentId: '21' }], {
        reader,
        since: SINCE,
        botLogin: 'caravel[bot]',
        warn: (m) => {
          throw new Error(m);
        },
      });
      // bob's 👍 has no time: the fake lists it at the epoch, before the version; a stranger's
      // 👍 does not count (not a collaborator).
      expect(weighed).toEqual([
        expect.objectContaining({ id: 'f_x', reactions: { up: [], down: ['alice'] } }),
      ]);
    } finally {
      await github.close();
    }
  });
});
