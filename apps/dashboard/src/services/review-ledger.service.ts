import { githubReviewThreadId } from '@caravel/contracts';
import { FindingRepository, ReviewedPullRequestRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { FINDING_STATUSES, type Actor, type Finding } from '@caravel/findings';
import { Inject, Injectable } from '@nestjs/common';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
import { verdictOfLedger, type ReviewVerdictView } from './review-verdict.js';

type FindingStatus = (typeof FINDING_STATUSES)[number];

/** One finding as the dashboard shows it: who raised it, where, and where it stands. */
export interface LedgerFindingView {
  id: string;
  raisedBy: { kind: Actor['kind']; name: string };
  severity: Finding['severity'];
  confidence: Finding['confidence'];
  category: string;
  title: string;
  description: string;
  suggestion: string | null;
  status: FindingStatus;
  resolution: string | null;
  /** Where it is now (it follows the code across pushes). */
  anchor: { file: string; startLine: number | null; endLine: number | null; sha: string };
  inDiff: boolean;
  firstSeenSha: string;
  lastConfirmedSha: string;
  /** The review comments it was raised or repeated in (links on the code host). */
  links: string[];
  replies: number;
  updatedAt: string;
}

/** A pull request's review ledger: every finding on it, whoever raised it. */
export interface ReviewLedgerView {
  pullRequest: { owner: string; repo: string; number: number };
  url: string;
  threadId: string;
  headSha: string | null;
  lastReviewedSha: string | null;
  /** The latest publish's verdict (null before the first publish). */
  verdict: ReviewVerdictView | null;
  /** Why the head asked about was not reviewed (reviews off...); null once a review starts. */
  notReviewed: { reason: string; headSha: string | null; at: string | null } | null;
  counts: Record<FindingStatus, number>;
  findings: LedgerFindingView[];
}

/** A reviewed pull request in the list: where its ledger stands. */
export interface ReviewedPullRequestView {
  pullRequest: { owner: string; repo: string; number: number };
  url: string;
  threadId: string;
  headSha: string | null;
  lastReviewedSha: string | null;
  counts: Record<FindingStatus, number>;
  updatedAt: string;
}

function nameOf(actor: Actor): string {
  return actor.kind === 'caravel' ? 'caravel' : actor.login;
}

function viewOf(finding: Finding): LedgerFindingView {
  const { file, startLine, endLine, sha } = finding.anchor;
  return {
    id: finding.id,
    raisedBy: { kind: finding.author.kind, name: nameOf(finding.author) },
    severity: finding.severity,
    confidence: finding.confidence,
    category: finding.category,
    title: finding.title,
    description: finding.description,
    suggestion: finding.suggestion,
    status: finding.status,
    resolution: finding.resolution?.kind ?? null,
    anchor: { file, startLine, endLine, sha },
    inDiff: finding.inDiff,
    firstSeenSha: finding.firstSeenSha,
    lastConfirmedSha: finding.lastConfirmedSha,
    links: finding.reports.flatMap((report) => (report.url ? [report.url] : [])),
    replies: finding.interactions.length,
    updatedAt: finding.updatedAt,
  };
}

/** Reads the reviewer's ledger of a pull request (docs/reviewer.md) for the dashboard. */
@Injectable()
export class ReviewLedgerService {
  constructor(
    @Inject(FindingRepository) private readonly findings: FindingRepository,
    @Inject(ReviewedPullRequestRepository) private readonly reviewed: ReviewedPullRequestRepository,
    @Inject(DASHBOARD_CONFIG) private readonly config: Pick<DashboardConfig, 'signIn'>,
  ) {}

  /** The pull request on the code host (the GitHub the dashboard signs in with). */
  private urlOf(pr: { owner: string; repo: string; number: number }): string {
    const web = this.config.signIn.webUrl.replace(/\/$/, '');
    return `${web}/${pr.owner}/${pr.repo}/pull/${pr.number}`;
  }

  /** Reviewed pull requests, the most recently changed first. */
  async list(query: { repo?: string; limit: number }): Promise<ReviewedPullRequestView[]> {
    const rows = await this.reviewed.list({
      limit: query.limit,
      ...(query.repo ? { repository: query.repo } : {}),
    });
    return rows.map((row) => ({
      pullRequest: { owner: row.owner, repo: row.repo, number: row.number },
      url: this.urlOf(row),
      threadId: row.threadId,
      headSha: row.headSha,
      lastReviewedSha: row.lastReviewedSha,
      counts: { open: row.open, resolved: row.resolved, dismissed: row.dismissed },
      updatedAt: row.updatedAt.toISOString(),
    }));
  }

  async ledger(
    pullRequest: { owner: string; repo: string; number: number },
    status?: FindingStatus,
  ): Promise<ReviewLedgerView> {
    const threadId = githubReviewThreadId(pullRequest);
    const ledger = await this.findings.getLedger(threadId);
    if (!ledger) {
      const name = `${pullRequest.owner}/${pullRequest.repo}#${pullRequest.number}`;
      throw new AppError('NOT_FOUND', `no review ledger for ${name}: it was never reviewed`);
    }
    const all = await this.findings.list(threadId);
    const counts = { open: 0, resolved: 0, dismissed: 0 };
    for (const finding of all) counts[finding.status] += 1;
    const shown = status ? all.filter((finding) => finding.status === status) : all;
    return {
      pullRequest: { owner: ledger.owner, repo: ledger.repo, number: ledger.number },
      url: this.urlOf(ledger),
      threadId,
      headSha: ledger.headSha,
      lastReviewedSha: ledger.lastReviewedSha,
      verdict: verdictOfLedger(ledger),
      notReviewed: ledger.skipReason
        ? {
            reason: ledger.skipReason,
            headSha: ledger.skippedSha,
            at: ledger.skippedAt?.toISOString() ?? null,
          }
        : null,
      counts,
      findings: shown.map(viewOf),
    };
  }
}
