import { describe, expect, it } from '@jest/globals';
import type { FindingRepository } from '@caravel/db';
import type { Finding } from '@caravel/findings';
import { aFinding, PR_LINES, sha } from '@caravel/findings/testing';
import type { ListedReviewComment } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import type { PreparedReview } from '../preparation/prepare-review.js';
import { LedgerSyncService, type SyncGitHub } from './ledger-sync.service.js';
import { OUTSIDER_NOTE } from './outsider-findings.js';

const HEAD = sha('a');
const NOW = new Date('2026-03-02T09:00:00.000Z');
const BOT = 'caravel[bot]';
const THREAD = '59ec28ef-b6ee-5f51-8c35-1672d492b244';
const pr = { repository: { owner: 'acme', name: 'widgets' }, number: 7 };
const prepared = {
  headSha: HEAD,
  since: null,
  pullRequestDiff: { text: '', lines: PR_LINES },
} as unknown as PreparedReview;

/** A ledger double: `updateAll` applies the change to what it holds. */
function ledgerOf(filed: Finding[]) {
  let findings = [...filed];
  const repository = strictMock<FindingRepository>(
    {
      updateAll: (_id, change) => {
        const changed = change(findings);
        const known = new Set(findings.map((f) => f.id));
        findings = [
          ...findings.map((f) => changed.find((c) => c.id === f.id) ?? f),
          ...changed.filter((c) => !known.has(c.id)),
        ];
        return Promise.resolve({ findings, updated: changed.map((f) => f.id), added: [] });
      },
    },
    'findings',
  );
  return { repository, held: () => findings };
}

/** A review comment on line 11 of src/app.ts at the head, by `login` as GitHub lists it. */
const comment = (
  commentId: string,
  login: string,
  association: string,
  more: Partial<ListedReviewComment> = {},
): ListedReviewComment => ({
  commentId,
  reviewId: `r${commentId}`,
  inReplyToId: null,
  body: `Comment ${commentId}: this read can run past the end of the list.`,
  login,
  userType: login.endsWith('[bot]') ? 'Bot' : 'User',
  association,
  path: 'src/app.ts',
  line: 11,
  startLine: null,
  side: 'RIGHT',
  commitId: HEAD,
  url: null,
  createdAt: `2026-03-01T10:00:${commentId}Z`,
  ...more,
});

const githubListing = (comments: ListedReviewComment[]) =>
  strictMock<SyncGitHub>(
    {
      listReviewComments: () => Promise.resolve(comments),
      listThreads: () =>
        Promise.resolve([{ threadId: 'PRRT_caravel', isResolved: false, firstCommentId: '10' }]),
    },
    'github',
  );

describe('LedgerSyncService', () => {
  // Caravel's finding, posted as comment 10 of thread PRRT_caravel.
  const caravels = () =>
    aFinding({
      surface: {
        ...aFinding().surface,
        commentId: '10',
        threadId: 'PRRT_caravel',
        reviewId: 'r10',
      },
    });

  it("takes in the repository's own people's and installed bots' comments, never a stranger's", async () => {
    const own = caravels();
    const { repository, held } = ledgerOf([own]);
    const listed = [
      comment('10', BOT, 'NONE', { body: 'Caravel: off-by-one.' }),
      comment('20', 'mallory', 'NONE', { body: 'Blocking: this leaks credentials.' }),
      comment('21', 'mallory', 'NONE', { inReplyToId: '10', body: 'Fixed, resolve this.' }),
      comment('22', 'newcomer', 'FIRST_TIME_CONTRIBUTOR', { line: 12 }),
      comment('30', 'ada', 'COLLABORATOR', { line: 10, body: 'The cache is never cleared.' }),
      comment('31', 'acme-owner', 'OWNER', { inReplyToId: '10', body: 'Is this reachable?' }),
      comment('40', 'coderabbitai[bot]', 'NONE', { path: 'docs/guide.md', line: 2 }),
    ];

    const sync = await new LedgerSyncService(repository, githubListing(listed), BOT).sync(
      THREAD,
      pr,
      prepared,
    );

    const ledger = held();
    expect(ledger.map((f) => f.author)).toEqual([
      { kind: 'caravel' },
      { kind: 'person', login: 'ada' },
      { kind: 'bot', login: 'coderabbitai[bot]', bot: 'coderabbit' },
    ]);
    // Only the owner's reply asks Caravel to reassess its finding; mallory's is not recorded.
    const replied = ledger.find((f) => f.id === own.id);
    expect(replied?.interactions.map((i) => i.commentId)).toEqual(['31']);
    expect(replied?.status).toBe('open');
    expect(sync.ingested.map((o) => [o.commentId, o.kind])).toEqual([
      ['10', 'own'],
      ['30', 'added'],
      ['40', 'added'],
      ['31', 'reply'],
    ]);
    expect(sync.outsiders.map((c) => c.commentId)).toEqual(['20', '21', '22']);
  });

  it('leaves the ledger as it was when only strangers commented', async () => {
    const own = caravels();
    const { repository, held } = ledgerOf([own]);
    const listed = [
      comment('10', BOT, 'NONE'),
      comment('20', 'mallory', 'NONE', { line: 10, body: 'Critical: SQL injection here.' }),
      comment('21', 'mallory', 'CONTRIBUTOR', { inReplyToId: '10', body: 'Not a bug.' }),
    ];

    const sync = await new LedgerSyncService(repository, githubListing(listed), BOT).sync(
      THREAD,
      pr,
      prepared,
    );

    expect(held()).toEqual([own]);
    expect(sync.ingested).toEqual([{ commentId: '10', kind: 'own' }]);
  });

  it("dismisses an open finding that only a stranger's comments raised (taken in before they stopped counting)", async () => {
    const own = caravels();
    const report = (commentId: string, login: string) => ({
      author: { kind: 'person' as const, login },
      commentId,
      reviewId: null,
      threadId: null,
      url: null,
      sha: HEAD,
      at: '2026-03-01T10:00:00Z',
    });
    const strangers = aFinding({
      author: { kind: 'person', login: 'mallory' },
      recheck: ['ingested'],
      reports: [report('20', 'mallory')],
    });
    const seconded = aFinding({
      author: { kind: 'person', login: 'mallory' },
      startLine: 11,
      endLine: 11,
      reports: [report('21', 'mallory'), report('30', 'ada')],
    });
    const { repository, held } = ledgerOf([own, strangers, seconded]);
    const listed = [
      comment('10', BOT, 'NONE'),
      comment('20', 'mallory', 'NONE'),
      comment('21', 'mallory', 'NONE'),
      comment('30', 'ada', 'COLLABORATOR'),
    ];

    const sync = await new LedgerSyncService(
      repository,
      githubListing(listed),
      BOT,
      () => NOW,
    ).sync(THREAD, pr, prepared);

    const byId = new Map(held().map((f) => [f.id, f]));
    expect(byId.get(strangers.id)).toMatchObject({
      status: 'dismissed',
      recheck: [],
      resolution: {
        kind: 'dismissed',
        sha: HEAD,
        note: OUTSIDER_NOTE,
        by: { kind: 'caravel' },
        at: NOW.toISOString(),
      },
    });
    expect(byId.get(own.id)?.status).toBe('open');
    // ada, a collaborator, said it too: it stays.
    expect(byId.get(seconded.id)?.status).toBe('open');
    expect(sync.dismissed).toEqual([strangers.id]);
  });
});
