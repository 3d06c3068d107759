import { reviewStyleThreadId } from '@caravel/contracts';
import type { EvalProposalRow, ReviewStyleRow } from '@caravel/db';
import {
  compareReviewRuns,
  reviewComparisonTable,
  reviewGateVerdict,
  type GatePolicy,
  type GateVerdict,
  type ReviewComparison,
  type ReviewRunRecord,
} from '@caravel/evals';
import { AppError } from '@caravel/errors';
import { reviewRunOfRecords } from '../review-eval/review-eval-records.js';
import type { EvalRecords } from './eval-records.js';
import { againstRun, decidedElsewhere, gateDecision, verdictText } from './gate-verdict.js';

/** What the style gate is asked: a pending review-style proposal, measured on a labelled set. */
export interface StyleGateRequest {
  readonly proposalId: string;
  /** The labelled set's name (the proposal's `suite`). */
  readonly set: string;
  /** A recorded reviewer run to measure against (default: the current style's). */
  readonly against?: string;
  readonly policy: GatePolicy;
  /** The reviewer model both sides are measured with (kept in the numbers). */
  readonly model: string;
}

/** Reviews the set with a style (null: none) and records it under `config`. */
export type StyleReviewRunner = (run: {
  readonly style: string | null;
  readonly config: string;
  readonly side: 'baseline' | 'candidate';
}) => Promise<ReviewRunRecord>;

export interface StyleGateOutcome {
  readonly proposal: EvalProposalRow;
  /** The version an accepted edit became; null when refused. */
  readonly style: ReviewStyleRow | null;
  readonly comparison: ReviewComparison;
  readonly verdict: GateVerdict;
  readonly text: string;
}

/** The configuration name a style version's reviewer runs are recorded under. */
export const styleConfigName = (repository: string, version: number | null) =>
  `style:${repository}@${version === null ? 'none' : `v${version}`}`;

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * The gate on a review style's edit: the reviewer eval is run on the labelled set with the draft
 * and compared with the current style's reviewer run there (the run that made it current when an
 * accepted edit did, else the latest run recorded under the version's name, else one run now),
 * and the F1 gate (`reviewGateVerdict`) decides. Accepted, the draft becomes the repository's next
 * version (mode `edited`) in the same transaction as the verdict; refused, the style in force is
 * unchanged. Either way the verdict and the figures are kept on the proposal.
 */
export class StyleGate {
  constructor(private readonly records: EvalRecords) {}

  async decide(request: StyleGateRequest, review: StyleReviewRunner): Promise<StyleGateOutcome> {
    const proposal = await this.pending(request);
    const repository = proposal.repository ?? '';
    const current = await this.inForce(proposal, repository);
    const configOf = (style: ReviewStyleRow | null) =>
      styleConfigName(repository, style?.version ?? null);
    const baseline =
      (await this.recordedBaseline(request, repository, current)) ??
      (await review({
        style: current?.prompt ?? null,
        config: configOf(current),
        side: 'baseline',
      }));
    const candidate = await review({
      style: proposal.stylePrompt,
      config: `style:${repository}#${proposal.id.slice(0, 8)}`,
      side: 'candidate',
    });
    const comparison = compareReviewRuns(baseline, candidate);
    const verdict = reviewGateVerdict(comparison, request.policy);
    const decision = {
      ...gateDecision(
        { baselineRunId: baseline.runId, candidateRunId: candidate.runId },
        request.policy,
        verdict,
      ),
      numbers: numbersOf(comparison, request.model),
    };
    const text = verdictText(reviewComparisonTable(comparison), verdict);
    if (verdict.verdict === 'refuse') {
      const refused = await this.records.proposals.decide(proposal.id, {
        ...decision,
        status: 'refused',
      });
      if (!refused) throw decidedElsewhere(proposal.id);
      return { proposal: refused, style: null, comparison, verdict, text };
    }
    const accepted = await this.records.proposals.acceptStyle(
      proposal.id,
      decision,
      provenanceOf(proposal, current),
    );
    if (!accepted) throw decidedElsewhere(proposal.id);
    return { ...accepted, comparison, verdict, text };
  }

  /** The version in force, when it is the one the proposal edits; CONFLICT otherwise. */
  private async inForce(proposal: EvalProposalRow, repository: string) {
    const current = await this.records.styles.latest(repository);
    const version = current?.version ?? null;
    if (version !== proposal.baseVersion)
      throw new AppError(
        'CONFLICT',
        `proposal ${proposal.id} edits version ${proposal.baseVersion ?? 'none'} of ${repository}'s style, but version ${version ?? 'none'} is in force now: propose the edit again from it`,
      );
    return current;
  }

  private async pending(request: StyleGateRequest): Promise<EvalProposalRow> {
    const found = await this.records.proposals.find(request.proposalId);
    if (!found) throw new AppError('NOT_FOUND', `no proposal ${request.proposalId}`);
    if (found.kind !== 'review-style')
      throw new AppError(
        'BAD_REQUEST',
        `proposal ${found.id} is a configuration change: gate it with caravel eval gate --proposal`,
      );
    if (found.status !== 'pending' || found.suite !== request.set)
      throw new AppError(
        'BAD_REQUEST',
        `proposal ${found.id} is ${found.status} on set '${found.suite}', not pending on '${request.set}'`,
      );
    return found;
  }

  /** The current style's recorded run on the set (`against` when given); null when there is none. */
  private async recordedBaseline(
    request: StyleGateRequest,
    repository: string,
    current: ReviewStyleRow | null,
  ): Promise<ReviewRunRecord | null> {
    const { runs, proposals } = this.records;
    if (request.against !== undefined) {
      const run = await againstRun(runs, request.against, {
        kind: 'review',
        suite: request.set,
        wanted: `a finished reviewer run of set '${request.set}'`,
      });
      return this.recorded(run);
    }
    const madeCurrent = current?.proposalId ? await proposals.find(current.proposalId) : null;
    const measured = madeCurrent?.candidateRunId
      ? await runs.find(madeCurrent.candidateRunId)
      : null;
    if (measured?.status === 'finished' && measured.suite === request.set)
      return this.recorded(measured);
    const named = await runs.latestFinished(request.set, {
      kind: 'review',
      config: styleConfigName(repository, current?.version ?? null),
    });
    return named ? this.recorded(named) : null;
  }

  private async recorded(run: { id: string; suite: string; config: string; model: string }) {
    return reviewRunOfRecords(run, await this.records.reviewCases.casesOf(run.id));
  }
}

function numbersOf(comparison: ReviewComparison, model: string) {
  const side = ({ runId, config, scores, f1 }: ReviewComparison['baseline']) => ({
    runId,
    config,
    scores,
    f1,
  });
  return {
    model,
    baseline: side(comparison.baseline),
    candidate: side(comparison.candidate),
    worse: comparison.cases.filter((c) => c.change === 'worse').map((c) => c.id),
    better: comparison.cases.filter((c) => c.change === 'better').map((c) => c.id),
  };
}

/** An accepted edit's provenance: the proposer, and what the version it edits was drawn from. */
function provenanceOf(proposal: EvalProposalRow, current: ReviewStyleRow | null) {
  const [owner = '', repo = ''] = (proposal.repository ?? '').split('/');
  return {
    threadId: reviewStyleThreadId({ owner, repo }),
    summary: proposal.styleSummary ?? current?.summary ?? 'Edited by a person.',
    wordCount: words(proposal.stylePrompt ?? ''),
    model: current?.model ?? 'edited',
    pullRequests: current?.pullRequests ?? [],
    commentIds: current?.commentIds ?? [],
    reviewers: current?.reviewers ?? [],
    counts: current?.counts ?? { pullRequests: 0, comments: 0, reviewers: 0 },
    editedBy: proposal.proposedBy,
  };
}
