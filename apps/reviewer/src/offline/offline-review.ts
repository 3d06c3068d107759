import { randomUUID } from 'node:crypto';
import { usageFromMessage, type TokenUsage } from '@caravel/agent';
import type { FindingRepository } from '@caravel/db';
import type { Finding } from '@caravel/findings';
import type { PullRequestRef } from '@caravel/integrations';
import type { MiddlewareEventSink } from '@caravel/middleware';
import type { ToolSandbox } from '@caravel/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { NO_REVIEW_SOURCES } from '../preparation/prepare-review.js';
import type { PullRequestText } from '../preparation/review-context.js';
import type { ReviewGit } from '../preparation/review-git.js';
import { runReview, type ReviewRunOutcome } from '../run/review-run.js';
import { OfflineReviewGitHub } from './offline-github.js';

/** The login an offline review is "published" as. */
export const OFFLINE_REVIEWER_LOGIN = 'caravel[bot]';

/** One pull request to review offline: a checkout holding its base and head, and a model. */
export interface OfflineReviewInput {
  /** Where the ledger lives (a database of its own: a review eval opens an in-memory one). */
  findings: FindingRepository;
  model: BaseChatModel;
  /** Git in the checkout (`sandboxGit` of a sandbox holding it), and its files for the tools. */
  git: ReviewGit;
  workspace: ToolSandbox | null;
  /** The names the model is shown; the ledger is keyed by them (unique per database). */
  pullRequest: PullRequestRef;
  headSha: string;
  /** A branch (of `origin`, else local) at the pull request's base. */
  baseBranch: string;
  /** What the pull request says of itself (its author's words: untrusted). */
  text?: PullRequestText | null;
  events?: MiddlewareEventSink;
  /** The price of a call's tokens when the provider does not report one (default: free). */
  priceOf?: (usage: TokenUsage) => number;
  now?: () => Date;
  /** The repository's review style to review with (a learned one, or a draft the gate measures). */
  reviewStyle?: string | null;
}

/** What the model spent on a review. */
export interface ReviewUsage {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** An offline review: Caravel's findings, what it would have posted, what it spent. */
export interface OfflineReview {
  threadId: string;
  /** The findings Caravel's reviewer filed, as the ledger holds them after the run. */
  findings: Finding[];
  outcome: ReviewRunOutcome;
  github: OfflineReviewGitHub;
  usage: ReviewUsage;
}

/** A model's answer (`AIMessage.isInstance`, read without loading LangChain). */
function isAnswer(message: BaseMessage): message is AIMessage {
  return message.type === 'ai';
}

/** Model calls, tokens and cost of a conversation (a provider's reported cost wins). */
export function usageOfConversation(
  messages: readonly BaseMessage[],
  priceOf: (usage: TokenUsage) => number = () => 0,
): ReviewUsage {
  const usage: ReviewUsage = { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  for (const message of messages) {
    if (!isAnswer(message)) continue;
    usage.modelCalls += 1;
    const tokens = usageFromMessage(message) ?? { inputTokens: 0, outputTokens: 0 };
    usage.inputTokens += tokens.inputTokens;
    usage.outputTokens += tokens.outputTokens;
    const reported = (message.response_metadata as { cost_usd?: unknown } | undefined)?.cost_usd;
    usage.costUsd += typeof reported === 'number' ? reported : priceOf(tokens);
  }
  return usage;
}

/**
 * Reviews a pull request through the reviewer's own review run (`runReview`: the deterministic
 * preparation, the ledger sync, the reviewer agent with its tools and middleware, the publish and
 * its check run), on a fresh ledger, against GitHub kept in memory ({@link OfflineReviewGitHub}):
 * what `caravel review-eval` scores. The verdict is never asked for; nothing leaves the process.
 */
export async function reviewOffline(input: OfflineReviewInput): Promise<OfflineReview> {
  const { findings, pullRequest } = input;
  const now = input.now ?? (() => new Date());
  const threadId = randomUUID();
  await findings.openLedger({
    threadId,
    owner: pullRequest.repository.owner,
    repo: pullRequest.repository.name,
    number: pullRequest.number,
  });
  const github = new OfflineReviewGitHub(pullRequest, OFFLINE_REVIEWER_LOGIN, now);
  const text = input.text ?? null;
  const outcome = await runReview(
    {
      findings,
      github,
      botLogin: OFFLINE_REVIEWER_LOGIN,
      events: input.events ?? { emit: () => undefined },
      now,
    },
    {
      threadId,
      pullRequest,
      headSha: input.headSha,
      baseBranch: input.baseBranch,
      model: input.model,
      git: input.git,
      workspace: input.workspace,
      sources: {
        ...NO_REVIEW_SOURCES,
        pullRequestText: () => Promise.resolve(text),
        reviewStyle: () => Promise.resolve(input.reviewStyle ?? null),
      },
      verdict: { verdictRequested: false, ownPullRequest: false, approveCleanReviews: false },
    },
  );
  const filed = (await findings.list(threadId)).filter((f) => f.author.kind === 'caravel');
  return {
    threadId,
    findings: filed,
    outcome,
    github,
    usage: usageOfConversation(outcome.conversation, input.priceOf),
  };
}
