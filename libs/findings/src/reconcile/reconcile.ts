import { assertAnchor, validateAnchor } from '../diff/anchor.js';
import type { ChangedLineSet } from '../diff/changed-lines.js';
import { mapAnchor, type AnchorMove } from '../diff/line-map.js';
import type { DiffFile } from '../diff/unified-diff.js';
import { findingsError } from '../findings.errors.js';
import {
  anchorOf,
  type Anchor,
  type Finding,
  type PlacedAnchor,
  type RecheckReason,
} from '../model/finding.model.js';

/** What reconciling a ledger with a new head needs. */
export interface ReconcileInput {
  findings: readonly Finding[];
  /** The head the anchors refer to now (the last reviewed sha). */
  fromSha: string;
  /** The new head. */
  toSha: string;
  /** `git diff fromSha toSha`, parsed: how the head's files changed. */
  interDiff: readonly DiffFile[];
  /**
   * `git diff <old merge base> <new merge base>`, parsed, when the base moved (a rebase, the base
   * branch merged in): LEFT anchors move through it. Without it LEFT anchors stay where they are.
   */
  baseDiff?: readonly DiffFile[];
  /** The pull request's changed-line set at `toSha`. */
  changedLines: ChangedLineSet;
  at: string;
}

/** What happened to one finding. */
export interface ReconcileChange {
  findingId: string;
  move: AnchorMove['kind'];
  from: PlacedAnchor;
  to: PlacedAnchor;
  /** The push deleted the finding's code: it is now resolved (`code_removed`). */
  resolved: boolean;
  /** Reasons added for the reviewer to look again. */
  recheck: RecheckReason[];
}

export interface ReconcileResult {
  /** Every finding, updated; the order of the input. */
  findings: Finding[];
  /** Only the findings that changed (the rows to write). */
  changed: Finding[];
  changes: ReconcileChange[];
  /** Findings anchored at neither `fromSha` nor `toSha`: left as they were (a diff from their sha is needed). */
  unmapped: string[];
}

/**
 * Carries the ledger from the reviewed head to a new one. Every finding's anchor follows its code
 * (closed ones too, so a repeat at the moved lines is still recognised). For open findings:
 * anchored lines a push changed or rewrote are marked for a re-check (the reviewer decides whether
 * the change fixed them: {@link resolveFinding} then records a fix by commit); code deleted with
 * nothing in its place resolves the finding (`code_removed`) and asks for its thread to be
 * resolved; an anchor that left the pull request's diff is marked too. A person's dismissal is
 * never touched. Reconciling again with the same head changes nothing.
 */
export function reconcileFindings(input: ReconcileInput): ReconcileResult {
  const changes: ReconcileChange[] = [];
  const unmapped: string[] = [];
  const findings = input.findings.map((finding) => {
    if (finding.anchor.sha === input.toSha) return finding;
    if (finding.anchor.sha !== input.fromSha) {
      unmapped.push(finding.id);
      return finding;
    }
    const { next, change } = carry(finding, input);
    changes.push(change);
    return next;
  });
  const changed = findings.filter((finding, i) => finding !== input.findings[i]);
  return { findings, changed, changes, unmapped };
}

function carry(
  finding: Finding,
  input: ReconcileInput,
): { next: Finding; change: ReconcileChange } {
  const diff = finding.anchor.side === 'RIGHT' ? input.interDiff : input.baseDiff;
  const current = anchorOf(finding);
  const move: AnchorMove = diff ? mapAnchor(current, diff) : { kind: 'unchanged', anchor: current };
  const open = finding.status === 'open';
  let next: Finding;
  const recheck: RecheckReason[] = [];
  if (move.kind === 'deleted') {
    next = { ...finding, anchor: { ...finding.anchor, sha: input.toSha }, inDiff: false };
    if (open) {
      next.status = 'resolved';
      next.resolution = { kind: 'code_removed', sha: input.toSha, at: input.at };
      next.recheck = [];
      if (finding.surface.commentId !== null) {
        next.surface = { ...finding.surface, state: 'resolve_pending' };
      }
    }
  } else {
    const inDiff = validateAnchor(move.anchor, input.changedLines).ok;
    if (open && (move.kind === 'changed' || move.kind === 'rewritten'))
      recheck.push('lines_changed');
    if (open && finding.inDiff && !inDiff) recheck.push('no_longer_in_diff');
    next = {
      ...finding,
      anchor: { ...move.anchor, sha: input.toSha },
      inDiff,
      recheck: [...new Set([...finding.recheck, ...recheck])],
    };
  }
  next.updatedAt = input.at;
  return {
    next,
    change: {
      findingId: finding.id,
      move: move.kind,
      from: finding.anchor,
      to: next.anchor,
      resolved: open && next.status === 'resolved',
      recheck,
    },
  };
}

/**
 * The reviewer moves an open finding's anchor (after a re-check, or to follow the nearest range
 * a refusal named). The new anchor must be commentable at `sha`.
 *
 * @throws AppError `PRECONDITION_FAILED` `anchor_not_commentable`; `CONFLICT` for a closed finding.
 */
export function reanchorFinding(
  finding: Finding,
  anchor: Anchor,
  context: { sha: string; changedLines: ChangedLineSet; at: string },
): Finding {
  if (finding.status !== 'open') {
    throw findingsError(
      'CONFLICT',
      'invalid_transition',
      `Cannot move ${finding.id}: it is ${finding.status}.`,
      { findingId: finding.id, status: finding.status },
    );
  }
  assertAnchor(anchor, context.changedLines);
  const same =
    finding.anchor.sha === context.sha &&
    finding.anchor.file === anchor.file &&
    finding.anchor.side === anchor.side &&
    finding.anchor.startLine === anchor.startLine &&
    finding.anchor.endLine === anchor.endLine;
  if (same && finding.inDiff) return finding;
  return {
    ...finding,
    anchor: { ...anchor, sha: context.sha },
    inDiff: true,
    recheck: finding.recheck.filter((reason) => reason !== 'no_longer_in_diff'),
    updatedAt: context.at,
  };
}
