import type { AgentMiddleware } from 'langchain';
import { findShellPullRequestWrite } from './github-shell-policy.js';
import type { MiddlewareEventSink } from './ports.js';
import { shellGuardMiddleware } from './shell-guard.js';

/** Parameters of {@link pullRequestCreationGuardMiddleware}. */
export interface PullRequestCreationGuardOptions {
  events: MiddlewareEventSink;
  /** The one tool that opens or updates the thread's pull request. */
  pullRequestToolName: string;
  /** Tools whose `command` runs in a shell (default `execute`). */
  shellToolNames?: readonly string[];
}

/**
 * Pull requests are opened and updated only through the PR tool, which opens one per branch (a
 * second call updates it) as a draft or not per the requester's preference: the shell's
 * `gh pr create|new|edit|ready`, `hub pull-request` and `gh api`/`curl` writes to `/pulls` are
 * refused before they run.
 */
export function pullRequestCreationGuardMiddleware(
  options: PullRequestCreationGuardOptions,
): AgentMiddleware {
  return shellGuardMiddleware({
    name: 'pull-request-creation-guard',
    detect: findShellPullRequestWrite,
    instead: `Commit, push and open or update the pull request with the ${options.pullRequestToolName} tool.`,
    events: options.events,
    ...(options.shellToolNames ? { shellToolNames: options.shellToolNames } : {}),
  });
}
