import { describe, expect, it } from '@jest/globals';
import type { FindingRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { renderReviewMarker, type Finding } from '@caravel/findings';
import { aFinding, PR_LINES, sha } from '@caravel/findings/testing';
import type { ListedReview, NewReview } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { approvesCleanReview, expectedVerdict, VERDICT_CASES } from '../testing/verdict-matrix.js';
import { PublishReviewService, type PublishGitHub } from './publish-review.service.js';

const HEAD = sha('a');
const STALE = sha('c');
const THREAD = '59ec28ef-b6ee-5f51-8c35-1672d492b244';
const pr = { repository: { owner: 'acme', name: 'widgets' }, number: 42 };

/** A ledger double holding `filed`: reads return it, writes replace findings in it. */
function ledgerOf(filed: Finding[]): FindingRepository {
  let findings = [...filed];
  const ledger = factory.reviewLedger({ threadId: THREAD });
  return strictMock<FindingRepository>(
    {
      getLedger: () => Promise.resolve(ledger),
      list: () => Promise.resolve(findings),
      updateAll: (_id, change) => {
        const changed = change(findings);
        findings = findings.map((f) => changed.find((c) => c.id === f.id) ?? f);
        return Promise.resolve({ findings, updated: changed.map((f) => f.id), added: [] });
      },
      moveLedger: () => Promise.resolve(ledger),
    },
    'findings',
  );
}

/** A GitHub double: the reviews it lists, and what the service sent it. */
function githubWith(reviews: ListedReview[]) {
  const created: NewReview[] = [];
  const dismissed: string[] = [];
  const github = strictMock<PublishGitHub>(
    {
      listReviews: () => Promise.resolve(reviews),
      listReviewComments: () => Promise.resolve([]),
      listThreads: () => Promise.resolve([]),
      createReview: (_pr, review) => {
        created.push(review);
        return Promise.resolve({ kind: 'created', reviewId: String(100 + created.length) });
      },
      dismissReview: (_pr, reviewId) => {
        dismissed.push(reviewId);
        return Promise.resolve();
      },
    },
    'github',
  );
  return { github, created, dismissed };
}

const staleApproval: ListedReview = {
  reviewId: '7',
  body: renderReviewMarker({ v: 1, pr: 42, head: STALE, threshold: 'medium', findings: [] }),
  state: 'APPROVED',
  commitId: STALE,
  login: 'caravel[bot]',
};

describe('PublishReviewService verdict gating', () => {
  it.each(VERDICT_CASES.map((c, mask) => ({ ...c, mask })))(
    'asked=$asked open=$open own=$own approves=$approves stale=$stale',
    async ({ asked, open, own, approves, stale, mask }) => {
      const findings = ledgerOf(open ? [aFinding({ severity: 'high' })] : []);
      const { github, created, dismissed } = githubWith(stale ? [staleApproval] : []);
      const service = new PublishReviewService(findings, github, 'caravel[bot]');

      await service.publish({
        threadId: THREAD,
        pullRequest: pr,
        headSha: HEAD,
        changedLines: PR_LINES,
        verdict: {
          verdictRequested: asked,
          ownPullRequest: own,
          approveCleanReviews: approvesCleanReview(
            { asked, open, own, approves, stale },
            mask,
            pr.repository,
          ),
        },
      });

      const {
        event,
        posted,
        dismissed: dismisses,
      } = expectedVerdict({
        asked,
        open,
        own,
        approves,
        stale,
      });
      expect(created.map((review) => review.event)).toEqual(posted ? [event] : []);
      expect(dismissed).toEqual(dismisses ? ['7'] : []);
    },
  );
});
