import type { IssueSubject, PullRequestSubject, SourceSubject } from '@caravel/contracts';
import type { GithubComment, GithubIssue, GithubPullRequest } from './github-payload.schemas.js';

/** GitHub's own cap on a title, body or comment; longer text (never sent by GitHub) is cut. */
const MAX_TEXT = 65_536;
const SHA = /^[0-9a-f]{40}$/;

const cut = (text: string): string => (text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text);

function optionalText(field: string, value: string | null | undefined) {
  return typeof value === 'string' ? { [field]: cut(value) } : {};
}

/**
 * The issue (or, for a comment on a pull request's conversation, the pull request) a GitHub
 * delivery was made on, as far as its payload describes it: `issue_comment` payloads name a pull
 * request without its branches, which the runner then reads from GitHub.
 */
export function subjectOfIssue(issue: GithubIssue): SourceSubject {
  // Filled in place, not spread together: every issue comment delivery is described here.
  const subject: Described = issue.pull_request
    ? { kind: 'pull_request', number: issue.number }
    : { kind: 'issue', number: issue.number, labels: [] };
  if (typeof issue.title === 'string') subject.title = cut(issue.title);
  if (typeof issue.body === 'string') subject.body = cut(issue.body);
  if (issue.user) subject.author = issue.user.login;
  if (subject.kind === 'issue' && issue.labels) {
    const labels = issue.labels.length > 100 ? issue.labels.slice(0, 100) : issue.labels;
    subject.labels = labels.map((label) => label.name.slice(0, 100));
  }
  return subject;
}

/** A subject of {@link subjectOfIssue} while it is described. */
type Described = PullRequestSubject | IssueSubject;

/** Where a review comment sits: its file, lines and hunk. */
function reviewThreadOf(comment: GithubComment): PullRequestSubject['reviewThread'] {
  return {
    commentId: comment.id,
    ...(comment.path ? { path: comment.path } : {}),
    ...(comment.line ? { line: comment.line } : {}),
    ...(comment.start_line ? { startLine: comment.start_line } : {}),
    ...optionalText('diffHunk', comment.diff_hunk),
    ...(comment.in_reply_to_id ? { inReplyTo: comment.in_reply_to_id } : {}),
  };
}

/**
 * The pull request of a `pull_request_review_comment` or `pull_request_review` delivery: title,
 * body, head (branch, commit, repository: a fork's differs) and base; with `comment`, the review
 * thread it was written in.
 */
export function subjectOfPullRequest(
  pull: GithubPullRequest,
  comment?: GithubComment,
): PullRequestSubject {
  const head = pull.head;
  return {
    kind: 'pull_request',
    number: pull.number,
    ...optionalText('title', pull.title),
    ...optionalText('body', pull.body),
    ...(pull.user ? { author: pull.user.login } : {}),
    ...(head.ref ? { headRef: head.ref } : {}),
    ...(SHA.test(head.sha) ? { headSha: head.sha } : {}),
    ...(head.repo !== undefined
      ? {
          headRepository: head.repo && { owner: head.repo.owner.login, name: head.repo.name },
        }
      : {}),
    ...(pull.base?.ref ? { baseRef: pull.base.ref } : {}),
    ...(comment ? { reviewThread: reviewThreadOf(comment) } : {}),
  };
}
