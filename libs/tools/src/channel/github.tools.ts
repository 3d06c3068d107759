import { z } from 'zod';
import type { CaravelTool } from '../core/tool-definition.js';
import type {
  IssueDetails,
  PullRequestDetails,
  ScmChangedFile,
  ScmComment,
  ScmReadPort,
} from '../ports/scm.port.js';
import { defineChannelTool } from './channel-tool.js';
import {
  renderChangedFiles,
  renderScmIssue,
  renderPullRequest,
  renderScmComments,
} from './scm-render.js';

const number = z.number().int().positive();
const limit = z.number().int().min(1).max(100).default(50);
/** How much of a pull request's patches `github_get_pr_diff` shows. */
const MAX_PATCH_CHARS = 30_000;

/** What `github_list_pr_comments` read. */
export interface PullRequestComments {
  review: ScmComment[];
  conversation: ScmComment[];
}

function getPullRequestTool(scm: ScmReadPort): CaravelTool<PullRequestDetails> {
  return defineChannelTool({
    name: 'github_get_pr',
    description:
      "Read a pull request of the thread's repository from GitHub: title, body, state, head " +
      'branch and commit, base branch and size.',
    effect: 'read',
    input: z.strictObject({ pull_request: number }),
    run: (input) => scm.getPullRequest(input.pull_request),
    observe: renderPullRequest,
  });
}

function getPullRequestDiffTool(scm: ScmReadPort): CaravelTool<ScmChangedFile[]> {
  return defineChannelTool({
    name: 'github_get_pr_diff',
    description:
      "Read a pull request's changed files from GitHub: the diff stat, then the patches (cut " +
      'when long; the full diff is in the sandbox with git).',
    effect: 'read',
    input: z.strictObject({ pull_request: number }),
    run: (input) => scm.listPullRequestFiles(input.pull_request, 300),
    observe: (files) => renderChangedFiles(files, MAX_PATCH_CHARS),
  });
}

function listPullRequestCommentsTool(scm: ScmReadPort): CaravelTool<PullRequestComments> {
  return defineChannelTool({
    name: 'github_list_pr_comments',
    description:
      "Read a pull request's comments from GitHub: its review comments (on lines of the diff, " +
      'with file and line) and its conversation, oldest first.',
    effect: 'read',
    input: z.strictObject({ pull_request: number, limit }),
    run: async (input) => ({
      review: await scm.listReviewComments(input.pull_request, input.limit),
      conversation: await scm.listIssueComments(input.pull_request, input.limit),
    }),
    observe: (comments) =>
      `Review comments:\n${renderScmComments(comments.review, 'review comments')}\n\n` +
      `Conversation:\n${renderScmComments(comments.conversation, 'conversation comments')}`,
  });
}

function getIssueTool(scm: ScmReadPort): CaravelTool<IssueDetails> {
  return defineChannelTool({
    name: 'github_get_issue',
    description:
      "Read an issue of the thread's repository from GitHub: title, body, state, labels.",
    effect: 'read',
    input: z.strictObject({ issue: number }),
    run: (input) => scm.getIssue(input.issue),
    observe: renderScmIssue,
  });
}

function listIssueCommentsTool(scm: ScmReadPort): CaravelTool<ScmComment[]> {
  return defineChannelTool({
    name: 'github_list_issue_comments',
    description: "Read an issue's (or pull request's) conversation comments from GitHub.",
    effect: 'read',
    input: z.strictObject({ issue: number, limit }),
    run: (input) => scm.listIssueComments(input.issue, input.limit),
    observe: (comments) => renderScmComments(comments, 'comments'),
  });
}

/** The GitHub read tools, bound to the thread's repository. */
export function githubReadTools(scm: ScmReadPort): CaravelTool[] {
  return [
    getPullRequestTool(scm),
    getPullRequestDiffTool(scm),
    listPullRequestCommentsTool(scm),
    getIssueTool(scm),
    listIssueCommentsTool(scm),
  ] as CaravelTool[];
}
