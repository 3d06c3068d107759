import { IntegrationAdapters, type IntegrationsConfig } from '@caravel/integrations';

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
}

/** Injection token of the {@link PullRequestStatePort}. */
export const PULL_REQUEST_STATE = Symbol('caravel.dispatch-pull-request-state');

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
  };
}
