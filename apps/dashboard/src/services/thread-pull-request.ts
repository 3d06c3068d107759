import { MERGED_STOP_REASON, type CiWatchRow, type RunEventRow } from '@caravel/db';
import { z } from 'zod';
import type { threadDetailResponse } from '../api/queue-schemas.js';

/** The coding agent's tool that opens (or updates) a thread's pull request. */
export const OPEN_PR_TOOL = 'commit_and_open_pr';

/** Dispatch's CI watch stops with this reason when the pull request was closed unmerged. */
const CLOSED_STOP_REASON = 'pull_request_closed';

/** The pull request a thread's agent opened, as `GET /api/threads/:id` answers it. */
export type ThreadPullRequest = NonNullable<z.output<typeof threadDetailResponse>['pullRequest']>;

/**
 * What `commit_and_open_pr` says it did (its observation ends `…; opened draft pull request #7:
 * <url>`, or `pull request #7 (ready for review): <url>`).
 */
const OPENED =
  /; (?:opened|updated) (draft )?pull request #(\d+)(?: \(ready for review\))?: (https?:\/\/\S+)$/;
const PULL_URL = /\/([^/\s]+)\/([^/\s]+)\/pull\/\d+$/;

/** The part of a stored `evt.run.step` read here: its tool results. */
const stepResults = z.object({
  results: z.array(z.object({ name: z.string(), status: z.string(), content: z.string() })),
});

/** The pull request a run step's last successful `commit_and_open_pr` result names, or null. */
export function pullRequestOfStep(step: RunEventRow): Omit<ThreadPullRequest, 'state'> | null {
  const parsed = stepResults.safeParse(step.data);
  const results = parsed.success ? parsed.data.results : [];
  for (const result of results.toReversed()) {
    if (result.name !== OPEN_PR_TOOL || result.status !== 'success') continue;
    const opened = OPENED.exec(result.content.trim());
    if (opened?.[2] && opened[3])
      return { number: Number(opened[2]), url: opened[3], draft: opened[1] !== undefined };
  }
  return null;
}

/** `owner` and `repo` of a pull request's web url, or null. */
export function repositoryOfPullUrl(url: string): { owner: string; repo: string } | null {
  const match = PULL_URL.exec(url);
  return match?.[1] && match[2] ? { owner: match[1], repo: match[2] } : null;
}

/** The state a pull request's CI watch knows: open while watched, closed or merged once stopped so. */
export function stateOfWatch(watch: CiWatchRow | null): ThreadPullRequest['state'] {
  if (!watch) return null;
  if (watch.active) return 'open';
  if (watch.stoppedReason === MERGED_STOP_REASON) return 'merged';
  return watch.stoppedReason === CLOSED_STOP_REASON ? 'closed' : null;
}
