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
    observe: observeCommitAndOpenPr,
  });
}

/** What stands in for a pull request, said as it is (see {@link PullRequestRef.standIn}). */
const STAND_IN_NOTES = {
  branch: "the repository's remote has no pull requests",
  held: 'nothing is pushed or opened for an attempt: its pull request is opened only if it is selected',
} as const;

/**
 * The observation: `Committed <sha> and pushed <branch>; opened draft pull request #7: <url>`
 * (dispatch's CI watch and the dashboard read the pull request from it). Where no pull request
 * exists the observation says so and names none: a model told "pull request #0" repeats it.
 */
function observeCommitAndOpenPr(output: CommitAndOpenPrOutput): string {
  const commit =
    output.commitSha === null
      ? 'There was nothing new to commit'
      : `Committed ${output.commitSha.slice(0, 12)}`;
  const { draft, number, url, standIn } = output.pullRequest;
  if (standIn === 'held') return `${commit} on ${output.branch}; ${STAND_IN_NOTES.held} (${url})`;
  if (standIn === 'branch') {
    const asked = draft ? 'the draft pull request' : 'the pull request (ready for review)';
    return `${commit} and pushed ${output.branch}; ${STAND_IN_NOTES.branch}, so the pushed branch stands for ${asked}: ${url}`;
  }
  const pr = draft ? `draft pull request #${number}` : `pull request #${number} (ready for review)`;
  return `${commit} and pushed ${output.branch}; ${output.action} ${pr}: ${url}`;
}

/**
 * True when a `commit_and_open_pr` observation says no pull request exists (a remote without
 * pull requests, an attempt of retry-and-select): there is none to look for, not a lost one.
 */
export function namesNoPullRequest(observation: string): boolean {
  return Object.values(STAND_IN_NOTES).some((note) => observation.includes(note));
}
