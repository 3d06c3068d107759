import { textOf, type FakeResponse, type LoopbackApi } from '../http/loopback-api.js';
import type { CallerOf, GitHubState } from './github-routes.js';
import type { GitHubReviewState } from './review-routes.js';

/** A commit status as the fake stores it (`POST /repos/{o}/{r}/statuses/{sha}`). */
export interface FakeCommitStatus {
  id: number;
  sha: string;
  context: string;
  state: 'success' | 'failure' | 'error' | 'pending';
  target_url: string | null;
  description: string | null;
  creator: { login: string };
}

const STATES = ['success', 'failure', 'error', 'pending'] as const;

/** Commit statuses by `owner/name` (lower case), oldest first. */
export class CommitStatuses {
  readonly byRepository = new Map<string, FakeCommitStatus[]>();

  /** The latest status of each context at `sha`, as GitHub's combined status lists them. */
  latestAt(repository: string, sha: string): FakeCommitStatus[] {
    const latest = new Map<string, FakeCommitStatus>();
    for (const status of this.byRepository.get(repository) ?? []) {
      if (status.sha === sha) latest.set(status.context, status);
    }
    return [...latest.values()];
  }
}

const repoKey = (p: Record<string, string>): string => `${p['owner']}/${p['repo']}`.toLowerCase();

/**
 * What CI reported on a commit: its check runs (`GET /repos/{o}/{r}/commits/{ref}/check-runs`,
 * the runs created through the fake's check-runs route) and its commit statuses (create one,
 * and the combined status `GET /repos/{o}/{r}/commits/{ref}/status`). `ref` is a commit sha
 * here: the fake resolves no branch names.
 */
export function registerCommitCheckRoutes(
  api: LoopbackApi,
  state: GitHubState,
  reviews: GitHubReviewState,
  statuses: CommitStatuses,
  caller: CallerOf,
): void {
  api.route('GET', '/repos/:owner/:repo/commits/:ref/check-runs', (_call, p) => {
    const runs = (reviews.checkRuns.get(repoKey(p)) ?? []).filter((r) => r.head_sha === p['ref']);
    return { status: 200, body: { total_count: runs.length, check_runs: runs } };
  });
  api.route('POST', '/repos/:owner/:repo/statuses/:sha', (call, p): FakeResponse => {
    const wanted = textOf(call.body?.['state']);
    const statusState = STATES.find((s) => s === wanted);
    if (!statusState) {
      return { status: 422, body: { message: 'Validation Failed', errors: [{ field: 'state' }] } };
    }
    const targetUrl = textOf(call.body?.['target_url']);
    const description = textOf(call.body?.['description']);
    const status: FakeCommitStatus = {
      id: state.id(),
      sha: String(p['sha']),
      context: textOf(call.body?.['context']) || 'default',
      state: statusState,
      target_url: targetUrl || null,
      description: description || null,
      creator: { login: caller(call) },
    };
    const key = repoKey(p);
    statuses.byRepository.set(key, [...(statuses.byRepository.get(key) ?? []), status]);
    return { status: 201, body: status };
  });
  api.route('GET', '/repos/:owner/:repo/commits/:ref/status', (_call, p) => {
    const latest = statuses.latestAt(repoKey(p), String(p['ref']));
    const combined = latest.some((s) => s.state === 'failure' || s.state === 'error')
      ? 'failure'
      : latest.every((s) => s.state === 'success') && latest.length > 0
        ? 'success'
        : 'pending';
    return {
      status: 200,
      body: { state: combined, sha: p['ref'], total_count: latest.length, statuses: latest },
    };
  });
}
