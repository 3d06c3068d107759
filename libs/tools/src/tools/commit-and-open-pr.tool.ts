import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { PullRequestRef, ScmPort } from '../ports/scm.port.js';

/** What `commit_and_open_pr` did. */
export interface CommitAndOpenPrOutput {
  branch: string;
  /** The new commit, or null when there was nothing new to commit. */
  commitSha: string | null;
  pullRequest: PullRequestRef;
  /** `opened` the first time; `updated` when the branch already had an open pull request. */
  action: 'opened' | 'updated';
}

/** How `commit_and_open_pr` opens a new pull request. */
export interface CommitAndOpenPrOptions {
  /** A draft (the default) or, false, ready for review: the preference of the person who asked. */
  draft: boolean;
}

/**
 * `commit_and_open_pr`: commit everything on the thread's branch, push, and open a pull request
 * (a draft or ready for review, as the person who asked prefers), or update the one already open
 * for the branch. Idempotent: calling it again (or retrying after a crash between push and open)
 * never opens a second pull request.
 */
export function commitAndOpenPrTool(
  scm: ScmPort,
  options: CommitAndOpenPrOptions = { draft: true },
): CaravelTool<CommitAndOpenPrOutput> {
  const kind = options.draft ? 'draft pull request' : 'pull request ready for review';
  return defineTool({
    name: 'commit_and_open_pr',
    description:
      `Commit all changes on this thread's branch, push it, and open a ${kind} (or ` +
      'update the title and body of the one already open for the branch).',
    effect: 'write',
    input: z.strictObject({
      commit_message: z.string().trim().min(1).describe('The commit message.'),
      title: z.string().trim().min(1).max(256).describe('The pull request title.'),
      body: z.string().describe('The pull request description (markdown).'),
    }),
    async run(input) {
      const commit = await scm.commitAndPush({ message: input.commit_message });
      const text = { title: input.title, body: input.body };
      const existing = await scm.findOpenPullRequest(commit.branch);
      if (existing !== null) {
        const pullRequest = await scm.updatePullRequest(existing.number, text);
        return {
          branch: commit.branch,
          commitSha: commit.commitSha,
          pullRequest,
          action: 'updated',
        };
      }
      const pullRequest = await scm.openPullRequest({
        branch: commit.branch,
        ...text,
        draft: options.draft,
      });
      return { branch: commit.branch, commitSha: commit.commitSha, pullRequest, action: 'opened' };
    },
    observe: (output) => {
      const commit =
        output.commitSha === null
          ? 'There was nothing new to commit'
          : `Committed ${output.commitSha.slice(0, 12)}`;
      const { draft, number } = output.pullRequest;
      const pr = draft
        ? `draft pull request #${number}`
        : `pull request #${number} (ready for review)`;
      return `${commit} and pushed ${output.branch}; ${output.action} ${pr}: ${output.pullRequest.url}`;
    },
  });
}
