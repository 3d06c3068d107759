import type { Selectable } from 'kysely';
import type { EvalProposal } from '../generated/types.js';
import { toJson } from '../connection/json.js';
import { inTransaction, timeOr, type Executor } from './executor.js';
import {
  ReviewStyleRepository,
  type NewReviewStyle,
  type ReviewStyleRow,
} from './review-style.repository.js';
import { rowOf, type RowOf } from './row-of.js';
import type { EvalProposalKind, EvalProposalStatus } from './states.js';

/** A proposed configuration change and, once the gate ran, its verdict (`eval_proposals`). */
export type EvalProposalRow = Omit<RowOf<EvalProposal>, 'settings'> & {
  settings: Record<string, string>;
};

/** A proposal to record, `pending` until the gate decides it. */
export interface NewEvalProposal {
  id: string;
  suite: string;
  config: string;
  model: string;
  settings: Readonly<Record<string, string>>;
  note?: string | null;
  proposedBy: string;
  createdAt: Date;
  /** A learned review style's edit (kind `review-style`); none: an agent configuration change. */
  style?: NewStyleDraft;
}

/** A review style's draft: the prompt that would become the repository's next version. */
export interface NewStyleDraft {
  /** `owner/name` (stored lower-cased). */
  repository: string;
  prompt: string;
  summary?: string | null;
  /** The version in force when it was proposed (null: the repository had none). */
  baseVersion: number | null;
}

/** The gate's verdict and what it was measured on. */
export interface EvalProposalDecision {
  status: Exclude<EvalProposalStatus, 'pending'>;
  baselineRunId: string;
  candidateRunId: string;
  maxDrop: number;
  alpha: number;
  delta: number;
  pValue: number;
  reason: string;
  /** The two sides' rates and the flips, as the gate's caller summarises them. */
  numbers: unknown;
}

/** Which proposals to list, the newest first. */
export interface EvalProposalQuery {
  suite?: string;
  status?: EvalProposalStatus;
  kind?: EvalProposalKind;
  /** A review style's repository (`owner/name`, any case). */
  repository?: string;
  limit: number;
}

/** An accepted review-style proposal and the style version it became. */
export interface AcceptedStyle {
  proposal: EvalProposalRow;
  style: ReviewStyleRow;
}

/** Proposed configuration changes: recorded pending, decided once. */
export class EvalProposalRepository {
  constructor(private readonly db: Executor) {}

  async propose(proposal: NewEvalProposal): Promise<EvalProposalRow> {
    const row = await this.db
      .insertInto('eval_proposals')
      .values({
        id: proposal.id,
        suite: proposal.suite,
        config: proposal.config,
        model: proposal.model,
        settings: toJson(proposal.settings),
        note: proposal.note ?? null,
        proposed_by: proposal.proposedBy,
        created_at: proposal.createdAt,
        ...(proposal.style
          ? {
              kind: 'review-style' as const,
              repository: proposal.style.repository.toLowerCase(),
              style_prompt: proposal.style.prompt,
              style_summary: proposal.style.summary ?? null,
              base_version: proposal.style.baseVersion,
            }
          : {}),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return proposalOf(row);
  }

  async find(id: string): Promise<EvalProposalRow | null> {
    const row = await this.db
      .selectFrom('eval_proposals')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? proposalOf(row) : null;
  }

  /** The oldest proposal of the configuration on the suite still waiting for the gate. */
  async pendingFor(suite: string, config: string): Promise<EvalProposalRow | null> {
    const row = await this.db
      .selectFrom('eval_proposals')
      .selectAll()
      .where('kind', '=', 'agent-config')
      .where('suite', '=', suite)
      .where('config', '=', config)
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
    return row ? proposalOf(row) : null;
  }

  /** Records the verdict of a pending proposal; null when it is not pending (decided already). */
  async decide(
    id: string,
    decision: EvalProposalDecision,
    at?: Date,
  ): Promise<EvalProposalRow | null> {
    const row = await this.db
      .updateTable('eval_proposals')
      .set({
        status: decision.status,
        baseline_run_id: decision.baselineRunId,
        candidate_run_id: decision.candidateRunId,
        max_drop: decision.maxDrop,
        alpha: decision.alpha,
        delta: decision.delta,
        p_value: decision.pValue,
        reason: decision.reason,
        numbers: toJson(decision.numbers),
        decided_at: timeOr(at),
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    return row ? proposalOf(row) : null;
  }

  /**
   * Accepts a pending review-style proposal and saves its draft as the repository's next version
   * (mode `edited`, `style`'s provenance), in one transaction; null when it is not pending.
   */
  async acceptStyle(
    id: string,
    decision: Omit<EvalProposalDecision, 'status'>,
    style: Omit<NewReviewStyle, 'repository' | 'prompt' | 'mode' | 'proposalId'>,
    at?: Date,
  ): Promise<AcceptedStyle | null> {
    return inTransaction(this.db, async (trx) => {
      const proposals = new EvalProposalRepository(trx);
      const decided = await proposals.decide(id, { ...decision, status: 'accepted' }, at);
      if (!decided) return null;
      if (decided.kind !== 'review-style' || !decided.repository || decided.stylePrompt === null)
        throw new Error(`proposal ${id} is not a review style's edit`);
      const saved = await new ReviewStyleRepository(trx).save(
        {
          ...style,
          repository: decided.repository,
          prompt: decided.stylePrompt,
          mode: 'edited',
          proposalId: id,
        },
        at,
      );
      const row = await trx
        .updateTable('eval_proposals')
        .set({ style_version: saved.version })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { proposal: proposalOf(row), style: saved };
    });
  }

  /** The suite's most recently accepted proposal: its configuration is the current one. */
  async latestAccepted(suite: string): Promise<EvalProposalRow | null> {
    const row = await this.db
      .selectFrom('eval_proposals')
      .selectAll()
      .where('kind', '=', 'agent-config')
      .where('suite', '=', suite)
      .where('status', '=', 'accepted')
      .orderBy('decided_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? proposalOf(row) : null;
  }

  async list(query: EvalProposalQuery): Promise<EvalProposalRow[]> {
    let select = this.db
      .selectFrom('eval_proposals')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(query.limit);
    if (query.suite !== undefined) select = select.where('suite', '=', query.suite);
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    if (query.kind !== undefined) select = select.where('kind', '=', query.kind);
    if (query.repository !== undefined)
      select = select.where('repository', '=', query.repository.toLowerCase());
    return (await select.execute()).map(proposalOf);
  }
}

function proposalOf(row: Selectable<EvalProposal>): EvalProposalRow {
  return { ...rowOf<EvalProposal>(row), settings: row.settings as Record<string, string> };
}
