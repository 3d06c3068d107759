import type { AgentMiddleware } from 'langchain';
import { findShellReviewVerdict } from './github-shell-policy.js';
import type { MiddlewareEventSink } from './ports.js';
import { shellGuardMiddleware } from './shell-guard.js';

/** Parameters of {@link pullRequestVerdictGuardMiddleware}. */
export interface PullRequestVerdictGuardOptions {
  events: MiddlewareEventSink;
  /** Tools whose `command` runs in a shell (default `execute`). */
  shellToolNames?: readonly string[];
}

/**
 * Refuses review verdicts taken through the shell: `gh pr review --approve/-a/--request-changes/-r`
 * and `gh api`/`curl` posting `APPROVE` or `REQUEST_CHANGES` to `/pulls/N/reviews`, however they
 * are quoted, escaped, split across lines or wrapped (`bash -c`, `eval`, `$(...)`). Comment
 * reviews and reads run. Verdicts are the review tool's decision, never the shell's.
 */
export function pullRequestVerdictGuardMiddleware(
  options: PullRequestVerdictGuardOptions,
): AgentMiddleware {
  return shellGuardMiddleware({
    name: 'pull-request-verdict-guard',
    detect: findShellReviewVerdict,
    instead:
      'Review verdicts (approve / request changes) are never given from the shell; leave a ' +
      'comment review, or tell the user what you found.',
    ...options,
  });
}
