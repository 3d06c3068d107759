import {
  pullRequestHeadRefOf,
  type EnvelopeOf,
  type PullRequestSubject,
  type RepositoryRef,
  type SourceSubject,
  type StartRunV1,
} from '@caravel/contracts';
import type { IssueDetails, PullRequestDetails, PullRequestRef, ScmComment } from '@caravel/tools';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/** The recent conversation a run opens with (what GitHub held when the run started). */
export interface SubjectConversation {
  review: ScmComment[];
  conversation: ScmComment[];
}

/**
 * What a run was asked on, and so where it works:
 * - `pull-request`: an open pull request whose head branch is in the thread's repository: the
 *   sandbox checks that branch out and the run pushes to it (no branch of its own, no new PR);
 * - `fork`: an open pull request whose head the App cannot push to (a fork's, or a deleted
 *   fork's): the run works on its thread's own branch, started at the pull request's head as the
 *   repository exposes it (`refs/pull/<N>/head`), and publishes it as a new pull request against
 *   the same base;
 * - `issue`: an issue (or a pull request that is closed or unreadable): context only, the run
 *   works on its thread's own branch.
 */
export type RunSubject =
  | {
      kind: 'pull-request';
      pull: PullRequestDetails;
      asked: PullRequestSubject | undefined;
      comments: SubjectConversation;
      /** The head the thread last recorded (`pull_request.synchronize`), when it has one. */
      threadHead: string | null;
    }
  | {
      kind: 'fork';
      pull: PullRequestDetails;
      asked: PullRequestSubject | undefined;
      comments: SubjectConversation;
    }
  | {
      kind: 'issue';
      issue: IssueDetails | null;
      asked: SourceSubject | undefined;
      comments: SubjectConversation;
    }
  | { kind: 'none' };

/** The pull request number a run is about: its thread's pointer, else its trigger's subject. */
export function pullRequestNumberOf(run: StartRun): number | undefined {
  const pointer = run.replyTo?.['pullRequest'];
  if (typeof pointer === 'number') return pointer;
  if (typeof pointer === 'string' && /^\d+$/.test(pointer)) return Number(pointer);
  return run.subject?.kind === 'pull_request' ? run.subject.number : undefined;
}

/** The issue number a run is about, when it is not a pull request. */
export function issueNumberOf(run: StartRun): number | undefined {
  const pointer = run.replyTo?.['issue'];
  if (typeof pointer === 'number') return pointer;
  return run.subject?.kind === 'issue' ? run.subject.number : undefined;
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** True when the pull request's head branch lives in the thread's repository (not a fork). */
export function headIsInRepository(pull: PullRequestDetails, repository: RepositoryRef): boolean {
  const head = pull.head.repository;
  return head !== null && same(head.owner, repository.owner) && same(head.name, repository.name);
}

/**
 * The webhook's copy of a pull request, when GitHub cannot be read: enough to work on it only
 * when it named its head branch and where that branch lives.
 */
export function pullFromSubject(subject: PullRequestSubject): PullRequestDetails | null {
  if (!subject.headRef || !subject.headSha || subject.headRepository === undefined) return null;
  return {
    number: subject.number,
    title: subject.title ?? '',
    body: subject.body ?? '',
    author: subject.author ?? null,
    state: 'open',
    draft: false,
    url: `#${subject.number}`,
    head: { ref: subject.headRef, sha: subject.headSha, repository: subject.headRepository },
    base: { ref: subject.baseRef ?? '', sha: '' },
  };
}

/**
 * The branch a run works on, the repository ref its sandbox is cloned with, and the ref a new
 * sandbox's branch starts at when it is not the clone's (a fork's pull request head).
 */
export interface WorkBranch {
  branch: string;
  repository: RepositoryRef | undefined;
  startRef?: string;
  /** The branch's head on the code host, when the run knows it (a pull request's head). */
  head?: string;
}

/**
 * The commit or branch whose files a run trusts as its repository's own (its instructions): a
 * pull request's base commit when it was asked on one (its head is the author's, a fork's
 * included), else the thread's base branch (`undefined`: the repository's default branch).
 */
export function trustedBaseOf(
  subject: RunSubject,
  repository: RepositoryRef | undefined,
): string | undefined {
  return subject.kind === 'pull-request' || subject.kind === 'fork'
    ? subject.pull.base.sha
    : repository?.baseBranch;
}

/** The pull request a run works on when its sandbox is on that pull request's head branch. */
export function onPullRequestBranch(
  subject: RunSubject,
  workspace: { branch: string },
): PullRequestDetails | null {
  return subject.kind === 'pull-request' && workspace.branch === subject.pull.head.ref
    ? subject.pull
    : null;
}

/** Where a run works, from what it was asked on (see {@link WorkBranch}). */
export function workBranchOf(
  subject: RunSubject,
  threadBranch: string,
  repository: RepositoryRef | undefined,
): WorkBranch {
  if (!repository) return { branch: threadBranch, repository };
  if (subject.kind === 'fork') {
    return {
      branch: threadBranch,
      repository,
      startRef: pullRequestHeadRefOf(subject.pull.number),
    };
  }
  if (subject.kind !== 'pull-request') return { branch: threadBranch, repository };
  const { ref, sha } = subject.pull.head;
  return {
    branch: ref,
    repository: { ...repository, baseBranch: ref },
    ...(sha ? { head: sha } : {}),
  };
}

/** Where a fork's pull request branch lives, in words. */
function forkOf(pull: PullRequestDetails): string {
  return pull.head.repository
    ? `${pull.head.repository.owner}/${pull.head.repository.name}`
    : 'a fork that no longer exists';
}

/** What a run on a fork's pull request says once its new pull request is open. */
export function forkPullRequestOpened(pull: PullRequestDetails, opened: PullRequestRef): string {
  return (
    `I couldn't push to this pull request: its branch \`${pull.head.ref}\` lives in ` +
    `${forkOf(pull)}, which the Caravel app cannot write to. I opened #${opened.number} ` +
    `(${opened.url}) instead, against \`${pull.base.ref}\`: it starts at this pull request's ` +
    `head, so it carries its commits and mine.`
  );
}

/** The lines a fork pull request's stand-in adds to its body: where it comes from. */
export function forkPullRequestNote(pull: PullRequestDetails): string {
  return (
    `Builds on #${pull.number} (\`${pull.head.ref}\` from ${forkOf(pull)}), which Caravel ` +
    `cannot push to: this branch starts at that pull request's head, so it carries the fork's ` +
    `commits and Caravel's on top.`
  );
}

/**
 * What a run on a fork's pull request says when the broker would not start at its head (its
 * `details`): the repository does not have it, or its commits change the CI definitions, which
 * would run with the repository's secrets once pushed here. Null for any other failure.
 */
export function forkHeadRefused(
  pull: PullRequestDetails,
  details: Record<string, unknown>,
): string | null {
  const lead =
    `I can't work on this pull request: its branch \`${pull.head.ref}\` lives in ` +
    `${forkOf(pull)}, which the Caravel app cannot write to`;
  const ask = 'Push the branch to this repository and mention me on that pull request.';
  switch (details['reason']) {
    case 'start_ref_unavailable':
      return (
        `${lead}, and this repository could not give me its head ` +
        `(\`${pullRequestHeadRefOf(pull.number)}\`) to start a pull request of my own from. ${ask}`
      );
    case 'start_ref_changes_ci': {
      const paths = Array.isArray(details['paths']) ? details['paths'].map(String) : [];
      const which = paths.length > 0 ? ` (${paths.map((p) => `\`${p}\``).join(', ')})` : '';
      return (
        `${lead}, and its commits change this repository's CI definitions${which}: on a branch ` +
        `here they would run with this repository's secrets, so I won't push them. ${ask}`
      );
    }
    default:
      return null;
  }
}
