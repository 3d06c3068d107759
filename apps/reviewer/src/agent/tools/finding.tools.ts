import { AppError } from '@caravel/errors';
import {
  actorLabel,
  confirmFinding,
  fileFinding,
  findingDraftSchema,
  findingRevisionSchema,
  hasPendingReplies,
  linesLabel,
  reviseFinding,
  sortFindings,
  type Finding,
} from '@caravel/findings';
import { defineTool, quotedName, wrapUntrusted, type CaravelTool } from '@caravel/tools';
import { z } from 'zod';
import type { ReviewRunContext } from '../review-run.context.js';

/** What filing or revising a finding did, for the model. */
export interface FindingOutcome {
  finding: Finding;
  /** `added`, `duplicate` (an open finding says it already), `updated`, `unchanged`. */
  outcome: 'added' | 'duplicate' | 'updated' | 'unchanged';
  notes: string[];
}

const place = (f: Finding): string => `${quotedName(f.anchor.file)} (${linesLabel(f)})`;

const observeOutcome = (out: FindingOutcome): string =>
  [`${out.outcome}: ${out.finding.id} at ${place(out.finding)}`, ...out.notes].join('\n');

/**
 * `add_finding`: files a finding anchored in the pull request's diff at the head. A range GitHub
 * could not comment on is refused with the reason and the nearest range it would take; a
 * suggestion over four lines is dropped with a note; confidence is recorded, never gating.
 */
export function addFindingTool(context: ReviewRunContext): CaravelTool<FindingOutcome> {
  return defineTool({
    name: 'add_finding',
    description:
      'File one problem you found in the changed code, anchored on lines of the diff (RIGHT: ' +
      'new lines, LEFT: removed ones; no lines: the whole file). Filing what an open finding ' +
      'already says changes nothing.',
    effect: 'write',
    input: findingDraftSchema,
    async run(draft) {
      const { threadId, prepared, findings } = context;
      const ledger = await findings.list(threadId);
      const filed = fileFinding(ledger, draft, {
        headSha: prepared.headSha,
        changedLines: prepared.pullRequestDiff.lines,
        at: context.now().toISOString(),
      });
      if (filed.kind === 'duplicate') return { ...filed, outcome: 'duplicate' };
      const appended = await findings.append(threadId, filed.finding);
      return appended.appended
        ? { finding: appended.finding, outcome: 'added', notes: filed.notes }
        : {
            finding: appended.finding,
            outcome: 'duplicate',
            notes: [`Already filed as ${appended.finding.id}; nothing changed.`],
          };
    },
    observe: observeOutcome,
  });
}

const updateInput = findingRevisionSchema.extend({
  finding_id: z.string().trim().min(1),
  confirm: z
    .boolean()
    .optional()
    .describe('true: you checked it at the head and it still holds (settles a recheck)'),
});

/**
 * `update_finding`: revises an open finding (severity, title, description, category, suggestion)
 * and, with `confirm`, records that it still holds at the head, which settles a recheck after a
 * push and the replies waiting for reassessment.
 */
export function updateFindingTool(context: ReviewRunContext): CaravelTool<FindingOutcome> {
  return defineTool({
    name: 'update_finding',
    description:
      'Revise an open finding, or confirm it still holds at the head (confirm: true). To close ' +
      'one, use resolve_finding_thread.',
    effect: 'write',
    input: updateInput,
    async run({ finding_id: id, confirm, ...revision }) {
      await findingOf(context, id);
      const at = context.now().toISOString();
      const outcome = await context.findings.update(id, (current) => {
        const revised = reviseFinding(current, revision, at);
        return confirm ? confirmFinding(revised, { sha: context.prepared.headSha, at }) : revised;
      });
      return {
        finding: outcome.finding,
        outcome: outcome.changed ? 'updated' : 'unchanged',
        notes: [],
      };
    },
    observe: observeOutcome,
  });
}

/** The finding `id` of this review's ledger. @throws AppError `NOT_FOUND` otherwise. */
export async function findingOf(context: ReviewRunContext, id: string): Promise<Finding> {
  const finding = await context.findings.get(id);
  if (!finding || !(await context.findings.list(context.threadId)).some((f) => f.id === id)) {
    throw new AppError('NOT_FOUND', `no finding ${id} on this pull request: see list_findings.`);
  }
  return finding;
}

const listInput = z.strictObject({
  status: z.enum(['open', 'resolved', 'dismissed', 'all']).default('open'),
});

/**
 * One line per finding, with what still needs the reviewer's attention. The title of a finding
 * someone else raised is the first line of their review comment (anyone who can comment, the pull
 * request's author included), so it is wrapped as untrusted content; Caravel's own is plain.
 */
export function findingLine(f: Finding): string {
  const attention = [
    ...f.recheck.map((reason) => `recheck: ${reason}`),
    ...(hasPendingReplies(f) ? ['replies to reassess'] : []),
    ...(f.inDiff ? [] : ['outside the diff: never posted inline']),
  ];
  const by = actorLabel(f.author);
  const head = `${f.id} [${f.severity}, confidence ${f.confidence}] ${f.status} ${place(f)} by ${by}`;
  const notes = attention.length > 0 ? ` (${attention.join('; ')})` : '';
  if (f.author.kind === 'caravel') return `${head}: ${f.title}${notes}`;
  return `${head}${notes}:\n${wrapUntrusted(f.title, { source: 'review_comment', author: by })}`;
}

/**
 * `list_findings`: the pull request's ledger, every reviewer's findings (Caravel's, people's,
 * other bots'), so the review does not repeat what is already said.
 */
export function listFindingsTool(context: ReviewRunContext): CaravelTool<Finding[]> {
  return defineTool({
    name: 'list_findings',
    description:
      "List the pull request's findings from every reviewer (default: the open ones), with " +
      'those that need rechecking after a push or have replies to reassess.',
    effect: 'read',
    input: listInput,
    async run({ status }) {
      const ledger = await context.findings.list(context.threadId);
      return sortFindings(status === 'all' ? ledger : ledger.filter((f) => f.status === status));
    },
    observe: (found) =>
      found.length === 0 ? 'No findings.' : found.map((f) => findingLine(f)).join('\n'),
  });
}
