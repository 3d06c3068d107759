import type { FindingRepository } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import {
  candidatePairs,
  scoreCase,
  type MatchOptions,
  type ReviewEvalCase,
  type ReviewedFinding,
} from '@caravel/evals';
import type { Finding } from '@caravel/findings';
import { reviewOffline, sandboxGit, type OfflineReview } from '@caravel/reviewer';
import { ToolSandboxAdapter, type SandboxProvider } from '@caravel/sandbox';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { basename } from 'node:path';
import { caseSandbox, type CaseCommits } from './review-checkouts.js';
import type { ReviewJudge } from './review-judge.js';
import type { LoadedCase } from './review-set-files.js';

/** What every case of a run is reviewed with. */
export interface CaseRunner {
  findings: FindingRepository;
  provider: SandboxProvider;
  sandboxRoot: string;
  model: () => BaseChatModel;
  priceOf: (usage: { inputTokens: number; outputTokens: number }) => number;
  /** A judge for one case (a fresh model per case), or none. */
  judge: (() => ReviewJudge) | null;
  match: Required<Pick<MatchOptions, 'tolerance' | 'minSeverity'>>;
  /** The review style every case is reviewed with (none: no style, as in a repository without one). */
  reviewStyle?: string | null;
}

/** A case reviewed: its record, and what to keep beside it (the conversation, the posts). */
export interface CaseOutcome {
  record: ReviewEvalCase;
  transcript: unknown;
}

/** `owner/name` a model is shown for a case's repository (`local/<folder>` for a path). */
function namesOf(repository: string): { owner: string; name: string } {
  const parts = repository
    .replace(/\.git\/?$/, '')
    .split(/[/:]/)
    .filter(Boolean);
  const name = parts.pop() ?? 'repository';
  const owner = /^[a-z][a-z0-9+.-]*:\/\/|@/i.test(repository) ? (parts.pop() ?? 'remote') : 'local';
  return { owner, name: basename(name) };
}

function reviewedOf(finding: Finding): ReviewedFinding {
  return {
    id: finding.id,
    file: finding.file,
    startLine: finding.startLine,
    endLine: finding.endLine,
    side: finding.side,
    severity: finding.severity,
    confidence: finding.confidence,
    category: finding.category,
    title: finding.title,
    description: finding.description,
  };
}

/** A conversation as plain JSON: who spoke, what they said, which tools they called. */
function transcriptOf(messages: readonly BaseMessage[]): unknown[] {
  return messages.map((message) => {
    const { tool_calls: calls, tool_call_id: callId } = message as {
      tool_calls?: { name: string; args: unknown }[];
      tool_call_id?: string;
    };
    return {
      role: (message as { type?: string }).type ?? 'unknown',
      content: message.content,
      ...(calls?.length ? { toolCalls: calls.map(({ name, args }) => ({ name, args })) } : {}),
      ...(callId ? { toolCallId: callId } : {}),
    };
  });
}

/** The judge's verdicts on the case's pairs whose places overlap. */
async function judged(
  runner: CaseRunner,
  c: LoadedCase,
  findings: ReviewedFinding[],
): Promise<ReviewEvalCase['judged']> {
  if (!runner.judge) return [];
  const judge = runner.judge();
  const verdicts: ReviewEvalCase['judged'] = [];
  for (const pair of candidatePairs(c.defects, findings, runner.match)) {
    const finding = findings.find((f) => f.id === pair.finding) as ReviewedFinding;
    const verdict = await judge(c.defects[pair.defect] as LoadedCase['defects'][number], finding);
    verdicts.push({ ...pair, ...verdict });
  }
  return verdicts;
}

async function scored(
  runner: CaseRunner,
  c: LoadedCase,
  commits: CaseCommits,
  review: OfflineReview,
  wallMs: number,
): Promise<CaseOutcome> {
  const findings = review.findings.map(reviewedOf);
  const verdicts = await judged(runner, c, findings);
  const accepted = new Set(
    verdicts.filter((v) => v.accepted).map((v) => `${v.defect}:${v.finding}`),
  );
  const score = scoreCase(c.defects, findings, {
    ...runner.match,
    ...(runner.judge ? { accept: (defect, id) => accepted.has(`${defect}:${id}`) } : {}),
  });
  return {
    record: { ...caseOf(c, commits), findings, judged: verdicts, score, ...review.usage, wallMs },
    transcript: {
      case: c.id,
      conversation: transcriptOf(review.outcome.conversation),
      posted: { reviews: review.github.reviews, comments: review.github.comments },
    },
  };
}

/** What a case's record says of the case itself. */
function caseOf(c: LoadedCase, commits: CaseCommits) {
  return { id: c.id, baseSha: commits.baseSha, headSha: commits.headSha, defects: c.defects };
}

/** Why a case could not be reviewed, in one line. */
function reasonOf(error: unknown): string {
  const message = isAppError(error) || error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/**
 * One case through the reviewer's own review run (`reviewOffline`): a sandbox holding the case's
 * commits, a fresh model, a fresh ledger; then its findings scored against the case's defects
 * (the judge asked about each pair whose places overlap). A review that fails is a case with an
 * `error` and no score, not a failed run.
 */
export async function reviewCase(
  runner: CaseRunner,
  c: LoadedCase,
  index: number,
  commits: CaseCommits,
): Promise<CaseOutcome> {
  const started = Date.now();
  try {
    const { sandbox, release } = await caseSandbox(
      runner.provider,
      runner.sandboxRoot,
      `case-${index}`,
      commits,
    );
    let review: OfflineReview;
    try {
      review = await reviewOffline({
        findings: runner.findings,
        model: runner.model(),
        git: sandboxGit(sandbox),
        workspace: new ToolSandboxAdapter(sandbox, commits.headSha),
        pullRequest: { repository: namesOf(c.repository), number: index + 1 },
        headSha: commits.headSha,
        baseBranch: commits.baseBranch,
        text:
          c.title || c.body
            ? { title: c.title ?? '', body: c.body ?? '', author: 'author', comments: [] }
            : null,
        priceOf: runner.priceOf,
        reviewStyle: runner.reviewStyle ?? null,
      });
    } finally {
      await release();
    }
    return await scored(runner, c, commits, review, Date.now() - started);
  } catch (error) {
    const usage = { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    return {
      record: {
        ...caseOf(c, commits),
        ...{ findings: [], judged: [], score: null, ...usage },
        wallMs: Date.now() - started,
        error: reasonOf(error),
      },
      transcript: { case: c.id, error: reasonOf(error) },
    };
  }
}
