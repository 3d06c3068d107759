import { ciCheck, type CiCheck } from '@caravel/contracts';
import { IntegrationAdapters, type IntegrationsConfig } from '@caravel/integrations';
import { summariseChecks } from './check-summary.js';

/** Where a watched pull request stands now, as its code host says. */
export interface PullRequestState {
  state: 'open' | 'closed' | 'merged';
  headSha: string;
  /** False: a merge conflict with the base; null while the host is still working it out. */
  mergeable: boolean | null;
}

/** Reads a pull request's state for the CI sweep (no webhook exists for merge conflicts). */
export interface PullRequestStatePort {
  /** Null when Caravel cannot read the repository (no App, another host). */
  read(
    repository: { owner: string; name: string },
    number: number,
  ): Promise<PullRequestState | null>;
  /**
   * The names of the checks failing at the pull request's base commit (not the pull request's to
   * fix); null when Caravel cannot read the repository.
   */
  failingOnBase(
    repository: { owner: string; name: string },
    number: number,
  ): Promise<ReadonlySet<string> | null>;
}

/** Injection token of the {@link PullRequestStatePort}. */
export const PULL_REQUEST_STATE = Symbol('caravel.dispatch-pull-request-state');

/**
 * The failing checks' names among what a code host listed at a commit. The listing is whoever
 * configured the CI's text: a report that does not read as a check (an unknown state, a name
 * too long) is left out, as a check delivery's would be.
 */
export function failingCheckNames(listed: readonly unknown[]): Set<string> {
  const checks = listed.flatMap((raw): CiCheck[] => {
    const parsed = ciCheck.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
  return new Set(summariseChecks(checks).failing.map((check) => check.name));
}

/** The port over GitHub, as the App (`IntegrationAdapters.scmReader`). */
export function githubPullRequestState(config: IntegrationsConfig): PullRequestStatePort {
  const adapters = new IntegrationAdapters(config);
  return {
    async read(repository, number) {
      const reader = adapters.scmReader(repository);
      if (!reader) return null;
      const pull = await reader.getPullRequest(number);
      const state = pull.state === 'merged' || pull.state === 'closed' ? pull.state : 'open';
      return { state, headSha: pull.head.sha, mergeable: pull.mergeable ?? null };
    },
    async failingOnBase(repository, number) {
      const reader = adapters.scmReader(repository);
      if (!reader) return null;
      const { base } = await reader.getPullRequest(number);
      if (!base.sha) return new Set<string>();
      // Check runs and commit statuses are separate permissions: one refused keeps the other.
      const [runs, statuses] = await Promise.allSettled([
        reader.listCheckRuns(base.sha),
        reader.listCommitStatuses(base.sha),
      ]);
      if (runs.status === 'rejected' && statuses.status === 'rejected') throw runs.reason;
      return failingCheckNames([
        ...(runs.status === 'fulfilled' ? runs.value : []),
        ...(statuses.status === 'fulfilled' ? statuses.value : []),
      ]);
    },
  };
}
