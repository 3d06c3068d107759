import type { ReviewStyleRepository, ReviewStyleRow } from '@caravel/db';
import type { MergedPullRequest, ScmHistoryPort } from '@caravel/tools';
import type { ReviewStyleMode } from '@caravel/db';
import type { WeighedOutcome } from '../continual/finding-reactions.js';
import { CrawlTally } from '../crawl/crawl-signal.js';

/** How many merged pull requests a bootstrap looks at, newest first. */
export const MERGED_PULL_REQUESTS_LIMIT = 100;

/** Everything one analyzer run's tools are bound to. */
export interface ReviewStyleRunContext {
  /** `owner/repo`, lower-cased. */
  repository: string;
  threadId: string;
  mode: ReviewStyleMode;
  /** The model's reference, recorded as the saved version's provenance. */
  modelName: string;
  styles: ReviewStyleRepository;
  /** The repository's history (bootstrap); null in a continual run, which reads the ledger. */
  history: ScmHistoryPort | null;
  tally: CrawlTally;
  /** The merged pull requests, once listed. */
  merged: MergedPullRequest[] | null;
  /** The findings' outcomes a continual run weighs, with people's reactions (empty for a bootstrap). */
  outcomes: WeighedOutcome[];
  /** The version in force when the run started. */
  current: ReviewStyleRow | null;
  /** What the run saved; a run saves once. */
  saved: ReviewStyleRow | null;
}

/** A fresh context for one run. */
export function reviewStyleRunContext(
  fields: Omit<ReviewStyleRunContext, 'tally' | 'merged' | 'saved'> & { botLogin: string },
): ReviewStyleRunContext {
  const { botLogin, ...rest } = fields;
  return { ...rest, tally: new CrawlTally(botLogin), merged: null, saved: null };
}

/** The merged pull requests, listed once per run. */
export async function mergedPullRequests(
  context: ReviewStyleRunContext,
): Promise<MergedPullRequest[]> {
  if (!context.history) return [];
  context.merged ??= await context.history.listMergedPullRequests(MERGED_PULL_REQUESTS_LIMIT);
  return context.merged;
}

/** Whether merged pull requests remain that the crawl has not read. */
export async function unreadRemain(context: ReviewStyleRunContext): Promise<boolean> {
  const merged = await mergedPullRequests(context);
  return merged.some((pull) => !context.tally.hasRead(pull.number));
}
