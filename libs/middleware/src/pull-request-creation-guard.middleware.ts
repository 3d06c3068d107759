import { ToolMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { findShellPullRequestWrite } from './github-shell-policy.js';
import type { MiddlewareEventSink } from './ports.js';
import { shellGuardMiddleware } from './shell-guard.js';
import { errorToolMessage } from './tool-messages.js';

/**
 * The "always create PRs" policy of the person who asked for the run: a run that changed files
 * does not end before its pull request is opened or updated.
 */
export interface PullRequestPolicy {
  alwaysCreate: boolean;
  /** The run's changes so far: its diff against the commit it started from, committed or not. */
  changes(): Promise<string>;
}

/** Parameters of {@link pullRequestCreationGuardMiddleware}. */
export interface PullRequestCreationGuardOptions {
  events: MiddlewareEventSink;
  /** The one tool that opens or updates the thread's pull request. */
  pullRequestToolName: string;
  /** Tools whose `command` runs in a shell (default `execute`). */
  shellToolNames?: readonly string[];
  /** The requester's policy (default: no pull request is required). */
  policy?: PullRequestPolicy;
  /** The tools that end the run with its work, checked against the policy (default `submit`). */
  finishToolNames?: readonly string[];
}

function succeeded(result: unknown): boolean {
  return ToolMessage.isInstance(result) && result.status !== 'error';
}

/**
 * Pull requests are opened and updated only through the PR tool, which opens one per branch (a
 * second call updates it) as a draft or ready for review per the requester's preference: the
 * shell's `gh pr create|new|edit|ready`, `hub pull-request` and `gh api`/`curl` writes to
 * `/pulls` are refused before they run. Under the requester's "always create PRs" policy, a
 * `submit` while the run's changes differ from what the PR tool last published is refused once
 * (the agent opens or updates the pull request itself; nothing opens one for it). A second
 * `submit` with the same changes goes through, reported, so a pull request that cannot be opened
 * never traps the run.
 */
export function pullRequestCreationGuardMiddleware(
  options: PullRequestCreationGuardOptions,
): AgentMiddleware {
  const prTool = options.pullRequestToolName;
  const shell = shellGuardMiddleware({
    name: 'pull-request-creation-guard',
    detect: findShellPullRequestWrite,
    instead: `Commit, push and open or update the pull request with the ${prTool} tool.`,
    events: options.events,
    ...(options.shellToolNames ? { shellToolNames: options.shellToolNames } : {}),
  });
  const policy = options.policy;
  if (!policy?.alwaysCreate || !shell.wrapToolCall) return shell;
  const guardShell = shell.wrapToolCall;
  const finishers = new Set(options.finishToolNames ?? ['submit']);
  let published: string | null = null;
  let refusedAt: string | null = null;
  return createMiddleware({
    name: 'pull-request-creation-guard',
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      if (finishers.has(toolCall.name)) {
        // Changes that cannot be read (a broken sandbox) never hold the run back.
        const changes = await policy.changes().catch(() => '');
        const unpublished = changes.trim() !== '' && changes !== published;
        if (unpublished && changes !== refusedAt) {
          refusedAt = changes;
          options.events.emit({ type: 'pull_request_required', tool: toolCall.name });
          return errorToolMessage(
            toolCall,
            `Error: ${toolCall.name} was not run: the person who asked always wants a pull ` +
              `request, and your changes are not in one yet. Call ${prTool} first, then ` +
              `${toolCall.name} again.`,
          );
        }
        if (unpublished) options.events.emit({ type: 'pull_request_policy_unmet' });
      }
      const result = await guardShell(request, handler);
      if (toolCall.name === prTool && succeeded(result)) {
        published = await policy.changes().catch(() => published);
      }
      return result;
    },
  });
}
