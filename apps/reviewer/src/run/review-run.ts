import type { FindingRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { openFindings } from '@caravel/findings';
import type { PullRequestRef } from '@caravel/integrations';
import type { MiddlewareEventSink } from '@caravel/middleware';
import type { ToolSandbox } from '@caravel/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { ReviewRunContext } from '../agent/review-run.context.js';
import { ReviewerKitLoader } from '../agent/reviewer-kit.loader.js';
import { openingMessage } from '../preparation/outsider-comments.js';
import { reviewBrief } from '../preparation/review-context.js';
import {
  prepareReview,
  type PreparedReview,
  type ReviewSources,
} from '../preparation/prepare-review.js';
import type { ReviewGit } from '../preparation/review-git.js';
import { FindingThreadsService } from '../publish/finding-threads.service.js';
import {
  PublishReviewService,
  type PublishGitHub,
  type PublishRequest,
  type PublishResult,
} from '../publish/publish-review.service.js';
import { ReviewCheckService } from '../publish/review-check.service.js';
import {
  LedgerSyncService,
  type LedgerSync,
  type SyncGitHub,
} from '../reconcile/ledger-sync.service.js';

/** The agent's side of a review, loaded by the first one (LangChain and the providers). */
const kit = new ReviewerKitLoader();
/** GitHub as one review run uses it: reviews, threads, comments and the check run. */
export type ReviewGitHub = PublishGitHub &
  SyncGitHub &
  ConstructorParameters<typeof ReviewCheckService>[1];

/** What a review run is made with (the same for every run of a service). */
export interface ReviewRunDeps {
  findings: FindingRepository;
  github: ReviewGitHub;
  /** Caravel's GitHub login: its own comments are recognised, never ingested. */
  botLogin: string;
  events: MiddlewareEventSink;
  now?: () => Date;
}

/** One review run of a pull request's reviewer thread. */
export interface ReviewRunRequest {
  threadId: string;
  pullRequest: PullRequestRef;
  headSha: string;
  baseBranch?: string;
  model: BaseChatModel;
  /** Git in the checkout, and its files for the read-only tools (none: diff only). */
  git: ReviewGit;
  workspace: ToolSandbox | null;
  sources: ReviewSources;
  verdict: PublishRequest['verdict'];
  /**
   * Aborted when the reviewer shuts down: the review stops at its next safe point and is handed
   * back ({@link reviewHandedBack}) unless it has published already.
   */
  stopping?: AbortSignal;
}

/** What a review run did. */
export interface ReviewRunOutcome {
  prepared: PreparedReview;
  sync: LedgerSync;
  /** The last publish (the model's, else the one made for it at the end). */
  published: PublishResult;
  /** The agent's conversation: the brief, each model answer (with its usage) and tool result. */
  conversation: BaseMessage[];
}

/**
 * One review, start to end: the deterministic preparation (checkout, range, changed lines,
 * instructions, brief), the ledger brought to the head (reconcile since the last review, the
 * comments of the repository's own people and installed bots ingested), the check run started,
 * the reviewer agent run on the brief and, as untrusted text, anyone else's review comments,
 * and a publish. The model is asked to publish; when it ends without doing so, the run publishes
 * the ledger itself (a comment: never an approval), so the threads of closed findings settle and
 * the last reviewed head advances either way. The check run ends `success`, or `neutral` when
 * anything failed (the error is rethrown for the messaging layer to retry or dead-letter).
 */
export async function runReview(
  deps: ReviewRunDeps,
  request: ReviewRunRequest,
): Promise<ReviewRunOutcome> {
  const { findings, github, botLogin } = deps;
  const now = deps.now ?? (() => new Date());
  const { threadId, pullRequest: pr, headSha } = request;
  const ledger = await findings.getLedger(threadId);
  if (!ledger) throw new AppError('NOT_FOUND', `no review ledger for thread ${threadId}`);
  const prepared = await prepareReview(
    request.git,
    {
      owner: pr.repository.owner,
      repo: pr.repository.name,
      number: pr.number,
      headSha,
      ...(request.baseBranch ? { baseBranch: request.baseBranch } : {}),
      lastReviewedSha: ledger.lastReviewedSha,
      lastMergeBaseSha: ledger.mergeBaseSha,
    },
    request.sources,
  );
  handBackIfStopping(request);
  await findings.moveLedger(threadId, { headSha, mergeBaseSha: prepared.mergeBaseSha }, now());
  const sync = await new LedgerSyncService(findings, github, botLogin, now).sync(
    threadId,
    pr,
    prepared,
  );
  handBackIfStopping(request);
  const checks = new ReviewCheckService(findings, github);
  await checks.start(threadId, pr, headSha);
  try {
    const publisher = new PublishReviewService(findings, github, botLogin, now);
    let published: PublishResult | null = null;
    const context: ReviewRunContext = {
      threadId,
      pullRequest: pr,
      prepared,
      findings,
      github,
      threads: new FindingThreadsService(findings, github, now),
      now,
      publish: async (ask) => {
        published = await publisher.publish({
          threadId,
          pullRequest: pr,
          headSha,
          changedLines: prepared.pullRequestDiff.lines,
          ...(ask.threshold ? { threshold: ask.threshold } : {}),
          verdict: { ...request.verdict, ...(ask.proposed ? { proposed: ask.proposed } : {}) },
        });
        return published;
      },
    };
    const { buildReviewerAgent } = await kit.get();
    const agent = buildReviewerAgent({
      model: request.model,
      context,
      workspace: request.workspace,
      events: deps.events,
    });
    // Counted after the sync: the findings it took in from the repository's people are open too.
    const openAtStart = openFindings(await findings.list(threadId)).length;
    const brief = reviewBrief({ ...prepared.briefContent, openFindings: openAtStart });
    const conversation = await agent
      .run(openingMessage(brief, sync.outsiders), {
        ...(request.stopping ? { signal: request.stopping } : {}),
      })
      .catch((error: unknown) => {
        // Stopped after its publish: the review is out, and this run ends as done.
        if (request.stopping?.aborted && published !== null) return [];
        handBackIfStopping(request);
        throw error;
      });
    // A model that stopped before publishing (out of calls, or talked out of it by the diff it
    // read) did not review: the publish made for it settles threads and never approves.
    const final: PublishResult = published ?? (await context.publish({ proposed: 'COMMENT' }));
    const open = openFindings(await findings.list(threadId)).length;
    await checks.finish(threadId, pr, { kind: 'published', openFindings: open });
    return { prepared, sync, published: final, conversation };
  } catch (error) {
    await checks.finish(threadId, pr, { kind: 'died' }).catch(() => false);
    throw error;
  }
}

/**
 * What a review stopped by its reviewer's shutdown fails with: retryable DEPENDENCY_UNAVAILABLE
 * (`shutting_down`), so the bus hands the request back without using up its deliveries and the
 * next reviewer reviews the head again. Nothing was published (a review that had published ends
 * as done instead): the findings filed so far stay open and unposted on the ledger, where the
 * next run's model reads them (`list_findings`) and its publish posts them once; a repeat of one
 * is the same open finding (appends are idempotent by fingerprint).
 */
export function reviewHandedBack(threadId: string, headSha: string): AppError {
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `the review of thread ${threadId} at ${headSha.slice(0, 7)} is handed back: the reviewer is shutting down; nothing was published, and the next reviewer reviews the head again`,
    { retryable: true, details: { reason: 'shutting_down', threadId, headSha } },
  );
}

function handBackIfStopping(request: ReviewRunRequest): void {
  if (request.stopping?.aborted) throw reviewHandedBack(request.threadId, request.headSha);
}
