import type { ReviewThreadRef } from '@caravel/contracts';
import {
  quotedName,
  renderPullRequest,
  renderScmComments,
  renderScmIssue,
  wrapUntrusted,
  type PullRequestDetails,
} from '@caravel/tools';
import type { RunSubject, SubjectConversation } from '../scm/run-subject.js';

/** The tag around what a run was asked on, in its opening message. */
export const SOURCE_CONTEXT_TAG = 'source_context';

const short = (sha: string): string => sha.slice(0, 12);

/** Where the comment that asked sits in the diff: file, lines, and the hunk (untrusted). */
export function reviewThreadText(thread: ReviewThreadRef | undefined): string[] {
  if (!thread?.path) return [];
  const lines = thread.startLine
    ? `lines ${thread.startLine}-${thread.line}`
    : `line ${thread.line}`;
  const where = `The comment that asked is a review comment on ${thread.path}${thread.line ? ` ${lines}` : ''}${thread.inReplyTo ? `, in the review thread of comment ${thread.inReplyTo}` : ''}.`;
  const hunk = thread.diffHunk
    ? [wrapUntrusted(thread.diffHunk, { source: 'github', kind: 'diff_hunk' })]
    : [];
  return [where, ...hunk];
}

/**
 * When the branch is not where it was asked about: the comment saw one head, the thread last
 * recorded another, or the sandbox (kept from an earlier run) sits on an older commit.
 */
function movedText(
  pull: PullRequestDetails,
  seen: (string | null | undefined)[],
  sandboxHead: string,
): string[] {
  const notes: string[] = [];
  const earlier = seen.find((sha) => sha && sha !== pull.head.sha);
  if (earlier) {
    notes.push(
      `The branch moved since the request: it was at ${short(earlier)}, it is now at ${short(pull.head.sha)}.`,
    );
  }
  if (sandboxHead !== pull.head.sha) {
    notes.push(
      `Your sandbox is at ${short(sandboxHead)}, not at the branch's head ${short(pull.head.sha)}: ` +
        'someone else pushed to it. Your push will be refused until your work sits on top of ' +
        'theirs; if you cannot bring their commits in, say so with reply_to_user.',
    );
  }
  return notes;
}

/**
 * For a fork's pull request: the head moved since the request, or the sandbox (kept from an
 * earlier run on the thread) is not at the fork's head (its own commits, or the fork's newer).
 */
function forkMovedText(
  pull: PullRequestDetails,
  askedHead: string | undefined,
  sandboxHead: string,
): string[] {
  const notes: string[] = [];
  if (askedHead && askedHead !== pull.head.sha) {
    notes.push(
      `The branch moved since the request: it was at ${short(askedHead)}, it is now at ${short(pull.head.sha)}.`,
    );
  }
  if (sandboxHead !== pull.head.sha) {
    notes.push(
      `Your sandbox is at ${short(sandboxHead)}, not at the pull request's head ` +
        `${short(pull.head.sha)}: your branch holds earlier work of yours, and commits the fork ` +
        'added since are not in it.',
    );
  }
  return notes;
}

function conversationText(comments: SubjectConversation): string[] {
  return [
    ...(comments.review.length > 0
      ? [`Review comments (most recent):\n${renderScmComments(comments.review, 'review comments')}`]
      : []),
    ...(comments.conversation.length > 0
      ? [`Conversation (most recent):\n${renderScmComments(comments.conversation, 'comments')}`]
      : []),
  ];
}

/**
 * What a run was asked on, for its opening message: the pull request (title, body, branches,
 * the review thread of the comment that asked, its recent comments) or the issue (title, body,
 * labels, recent comments). Every word people wrote there is wrapped as untrusted content; only
 * the facts GitHub states (numbers, branches, commits) and Caravel's own sentences are plain.
 * `sandboxHead` is the commit the run's sandbox starts from. Nothing when the run was asked on
 * neither (chat and tracker sources).
 */
export function sourceContext(subject: RunSubject, sandboxHead: string): string | null {
  const body = contextBody(subject, sandboxHead);
  return body === null
    ? null
    : `<${SOURCE_CONTEXT_TAG}>\n${body.join('\n\n')}\n</${SOURCE_CONTEXT_TAG}>`;
}

function contextBody(subject: RunSubject, sandboxHead: string): string[] | null {
  switch (subject.kind) {
    case 'pull-request': {
      const { pull } = subject;
      return [
        `You were asked on pull request #${pull.number}. Your sandbox is checked out on its ` +
          `head branch \`${quotedName(pull.head.ref)}\` (base \`${pull.base.ref}\`): commit_and_open_pr ` +
          'pushes your commits to that branch, so they land on this pull request. Do not open ' +
          'another pull request; its title and body stay as their author wrote them.',
        ...movedText(pull, [subject.asked?.headSha, subject.threadHead], sandboxHead),
        renderPullRequest(pull),
        ...reviewThreadText(subject.asked?.reviewThread),
        ...conversationText(subject.comments),
        'Read more with github_get_pr, github_get_pr_diff and github_list_pr_comments.',
      ];
    }
    case 'issue': {
      const issue = subject.issue;
      const asked = subject.asked;
      const described = issue
        ? renderScmIssue(issue)
        : asked
          ? wrapUntrusted(`# ${asked.title ?? ''}\n\n${asked.body ?? ''}`, {
              source: 'github',
              id: `issue/${asked.number}`,
            })
          : null;
      if (described === null) return null;
      return [
        `You were asked on ${issue?.pullRequest || asked?.kind === 'pull_request' ? 'pull request' : 'issue'} #${issue?.number ?? asked?.number}. You work on a branch of your own.`,
        described,
        ...conversationText(subject.comments),
        'Read more with github_get_issue and github_list_issue_comments.',
      ];
    }
    case 'fork': {
      const { pull } = subject;
      const where = pull.head.repository
        ? `${pull.head.repository.owner}/${pull.head.repository.name}`
        : 'a fork that no longer exists';
      return [
        `You were asked on pull request #${pull.number}, whose head branch \`${quotedName(pull.head.ref)}\` ` +
          `lives in ${where}: Caravel cannot push there. You work on a branch of your own, ` +
          "started at that pull request's head: commit_and_open_pr pushes it to this repository " +
          `and opens a new pull request against \`${pull.base.ref}\` that carries the fork's ` +
          'commits and yours (its body says which pull request it builds on, and the person who ' +
          'asked is told where it is).',
        ...forkMovedText(pull, subject.asked?.headSha, sandboxHead),
        renderPullRequest(pull),
        ...reviewThreadText(subject.asked?.reviewThread),
        ...conversationText(subject.comments),
        'Read more with github_get_pr, github_get_pr_diff and github_list_pr_comments.',
      ];
    }
    case 'none':
      return null;
  }
}

/**
 * The run's prompt with what it was asked on after the request itself, then where its sandbox
 * starts when that needs saying (`startNote`).
 */
export function withSourceContext(
  prompt: string,
  context: string | null,
  startNote?: string,
): string {
  return [prompt, context, startNote].filter((part) => part).join('\n\n');
}
