import type {
  EnvelopeOf,
  PullRequestSubject,
  RepositoryRef,
  SourceSubject,
  StartRunV1,
} from '@caravel/contracts';
import type { IssueDetails, PullRequestDetails, ScmComment } from '@caravel/tools';

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
 * - `fork`: an open pull request whose head the App cannot push to: the run is refused;
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
  | { kind: 'fork'; pull: PullRequestDetails }
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

/** The branch a run works on and the repository ref its sandbox is cloned with. */
export function workBranchOf(
  subject: RunSubject,
  threadBranch: string,
  repository: RepositoryRef | undefined,
): { branch: string; repository: RepositoryRef | undefined } {
  if (subject.kind !== 'pull-request' || !repository) return { branch: threadBranch, repository };
  const ref = subject.pull.head.ref;
  return { branch: ref, repository: { ...repository, baseBranch: ref } };
}

/** The one message a run on a fork's pull request answers with instead of working. */
export function forkRefusal(pull: PullRequestDetails): string {
  const where = pull.head.repository
    ? `${pull.head.repository.owner}/${pull.head.repository.name}`
    : 'a fork that no longer exists';
  return (
    `I can't push to this pull request: its branch \`${pull.head.ref}\` lives in ${where}, ` +
    `which the Caravel app cannot write to. Ask again on an issue (or a pull request whose ` +
    `branch is in this repository), or push the branch here and mention me on that pull request.`
  );
}
