import { z } from 'zod';

import { assertAnchor } from '../diff/anchor.js';
import type { ChangedLineSet } from '../diff/changed-lines.js';
import { findingsError } from '../findings.errors.js';
import { actorLabel } from './authors.js';
import {
  confidenceSchema,
  notSurfaced,
  severitySchema,
  sideSchema,
  SUGGESTION_MAX_LINES,
  TITLE_MAX_CHARS,
  type Actor,
  type Anchor,
  type Finding,
} from './finding.model.js';
import {
  fingerprintOf,
  matchingFingerprints,
  newFindingId,
  normalizeDescription,
} from './fingerprint.js';

const modelLine = z.number().int().min(1, 'a 1-based line number').nullable().optional();

/**
 * What the reviewer model gives to file a finding (`add_finding`'s input), in the model's
 * snake_case. Lines are of the diff's side: RIGHT = the new version (added or context lines),
 * LEFT = the old one (removed lines). No lines: a file-level finding.
 */
export const findingDraftSchema = z.strictObject({
  severity: severitySchema,
  confidence: confidenceSchema.describe('how sure you are; recorded, it does not gate anything'),
  category: z.string().trim().min(1).max(60).describe('e.g. correctness, security, performance'),
  title: z
    .string()
    .trim()
    .min(1, 'a headline is required')
    .max(TITLE_MAX_CHARS, `at most ${TITLE_MAX_CHARS} characters: shorten the headline`),
  file: z
    .string()
    .trim()
    .min(1)
    .transform((path) => path.replace(/^(?:\.\/|\/)+/, '')),
  start_line: modelLine,
  end_line: modelLine,
  side: sideSchema.default('RIGHT'),
  description: z.string().trim().min(1, 'explain the problem and why it matters'),
  suggestion: z.string().nullable().optional(),
});
export type FindingDraft = z.output<typeof findingDraftSchema>;

/** What filing needs besides the draft. */
export interface FilingContext {
  /** The live head of the pull request: the commit whose diff the lines refer to. */
  headSha: string;
  /** The pull request's changed-line set at `headSha`. */
  changedLines: ChangedLineSet;
  /** Who files it (Caravel's reviewer unless a person's or bot's comment is being taken in). */
  author?: Actor;
  at: string;
  /** The hunk text to keep beside the finding, when the caller has the parsed diff. */
  diffHunk?: (anchor: Anchor) => string | null;
  newId?: () => string;
}

/** The outcome of {@link fileFinding}. `notes` tell the model what was changed or dropped. */
export type FilingOutcome =
  | { kind: 'added'; finding: Finding; notes: string[] }
  | { kind: 'duplicate'; finding: Finding; notes: string[] };

/**
 * Files a finding from the model's draft: validated, anchored inside the diff (out-of-diff
 * findings are refused with the nearest commentable range), fingerprinted and compared with the
 * ledger. Filing again what an open finding says returns that finding (idempotent, nothing to
 * write); repeating what someone dismissed is refused; a resolved one may come back as new.
 *
 * @throws AppError `BAD_REQUEST` (`invalid_input`, `description_repeats_title`),
 *   `PRECONDITION_FAILED` (`anchor_not_commentable`), `CONFLICT` (`duplicate`).
 */
export function fileFinding(
  ledger: readonly Finding[],
  raw: unknown,
  context: FilingContext,
): FilingOutcome {
  const draft = parseFindingDraft(raw);
  const notes: string[] = [];
  const anchor = draftAnchor(draft);
  const description = descriptionWithoutTitle(draft.title, draft.description);
  const check = assertAnchor(anchor, context.changedLines);
  if (check.scope === 'lines' && !check.touchesChange) {
    notes.push(
      'The lines are unchanged context of the diff: file it only if this change makes them wrong.',
    );
  }
  const suggestion = acceptedSuggestion(draft.suggestion ?? null, anchor, notes);
  const fingerprint = fingerprintOf({ ...anchor, description });
  const matches = ledger.filter((finding) => matchingFingerprints(finding).includes(fingerprint));
  const open = matches.find((finding) => finding.status === 'open');
  if (open) {
    return {
      kind: 'duplicate',
      finding: open,
      notes: [`Already filed as ${open.id}; nothing changed.`],
    };
  }
  const same = matches.find((finding) => finding.resolution?.kind === 'dismissed');
  if (same?.resolution?.kind === 'dismissed') {
    const { by, note, sha } = same.resolution;
    throw findingsError(
      'CONFLICT',
      'duplicate',
      `${actorLabel(by)} dismissed this finding (${same.id}) at ${sha.slice(0, 7)}: "${note}". Do not file it again unless the code changed since then; if it did, say what changed in the description.`,
      { findingId: same.id },
    );
  }
  const finding: Finding = {
    id: (context.newId ?? newFindingId)(),
    fingerprint,
    author: context.author ?? { kind: 'caravel' },
    severity: draft.severity,
    confidence: draft.confidence,
    category: draft.category,
    title: draft.title,
    ...anchor,
    inDiff: true,
    description,
    suggestion,
    status: 'open',
    resolution: null,
    firstSeenSha: context.headSha,
    lastConfirmedSha: context.headSha,
    anchor: { ...anchor, sha: context.headSha },
    diffHunk: context.diffHunk?.(anchor) ?? null,
    recheck: [],
    surface: notSurfaced(),
    reports: [],
    interactions: [],
    createdAt: context.at,
    updatedAt: context.at,
  };
  return { kind: 'added', finding, notes };
}

/**
 * Validates the model's draft.
 *
 * @throws AppError `BAD_REQUEST` `invalid_input`, one line per bad field.
 */
export function parseFindingDraft(raw: unknown): FindingDraft {
  const parsed = findingDraftSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`,
  );
  throw findingsError(
    'BAD_REQUEST',
    'invalid_input',
    `The finding is not valid: ${problems.join('; ')}. Fix these fields and file it again.`,
    { issues: problems },
  );
}

function draftAnchor(draft: FindingDraft): Anchor {
  const start = draft.start_line ?? null;
  const end = draft.end_line ?? start;
  if (start === null && end !== null) {
    throw findingsError(
      'BAD_REQUEST',
      'invalid_input',
      'end_line is set without start_line: give both (or start_line alone for one line), or neither for a file-level finding.',
    );
  }
  return { file: draft.file, startLine: start, endLine: end, side: draft.side };
}

/** The description without a first line that only restates the title (a common model habit). */
function descriptionWithoutTitle(title: string, description: string): string {
  const headline = normalizeDescription(title.replace(/[*_#`]/g, ''));
  const [first = '', ...rest] = description.split('\n');
  const firstIsTitle = normalizeDescription(first.replace(/[*_#`]/g, '')) === headline;
  const body = (firstIsTitle ? rest.join('\n') : description).trim();
  if (body === '' || normalizeDescription(body) === headline) {
    throw findingsError(
      'BAD_REQUEST',
      'description_repeats_title',
      'The description only repeats the title: explain what goes wrong, when, and why it matters.',
    );
  }
  return body;
}

function acceptedSuggestion(raw: string | null, anchor: Anchor, notes: string[]): string | null {
  if (raw === null) return null;
  const suggestion = raw.replace(/\r?\n$/, '');
  if (suggestion.trim() === '') return null;
  if (anchor.side !== 'RIGHT' || anchor.startLine === null) {
    notes.push(
      'Suggestion dropped: a suggestion replaces new (RIGHT) lines, so it needs a RIGHT line anchor.',
    );
    return null;
  }
  const lines = suggestion.split('\n').length;
  if (lines > SUGGESTION_MAX_LINES) {
    notes.push(
      `Suggestion dropped: ${lines} lines, at most ${SUGGESTION_MAX_LINES}. Describe the larger change in the description instead.`,
    );
    return null;
  }
  return suggestion;
}
