import type { ReplyChannel, ReplyReceipt } from '../ports/reply-channel.port.js';
import type {
  CommitOutcome,
  CommitRequest,
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ScmPort,
} from '../ports/scm.port.js';

/** A reply channel that records what was posted. */
export class RecordingReplyChannel implements ReplyChannel {
  readonly sent: string[] = [];

  async reply(text: string): Promise<ReplyReceipt> {
    this.sent.push(text);
    return Promise.resolve({ messageId: `msg-${this.sent.length}` });
  }
}

interface FakePullRequest extends PullRequestRef, PullRequestText {
  branch: string;
}

/** An in-memory SCM: commits count up, pull requests live in a list, one branch per thread. */
export class InMemoryScm implements ScmPort {
  readonly commits: string[] = [];
  readonly pullRequests: FakePullRequest[] = [];
  /** Set to make the next commit find nothing to commit. */
  clean = false;

  constructor(readonly branch = 'caravel/thread-1') {}

  async commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    if (this.clean) return Promise.resolve({ branch: this.branch, commitSha: null });
    this.commits.push(request.message);
    const sha = String(this.commits.length).padStart(40, 'a');
    return Promise.resolve({ branch: this.branch, commitSha: sha });
  }

  async findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    const found = this.pullRequests.find((pr) => pr.branch === branch);
    return Promise.resolve(found ? ref(found) : null);
  }

  async openPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    const number = this.pullRequests.length + 1;
    const draft = request.draft ?? true;
    const pr = { ...request, number, url: `https://scm.invalid/pr/${number}`, draft };
    this.pullRequests.push(pr);
    return Promise.resolve(ref(pr));
  }

  async updatePullRequest(number: number, request: PullRequestText): Promise<PullRequestRef> {
    const pr = this.pullRequests.find((p) => p.number === number);
    if (!pr) throw new Error(`no pull request #${number}`);
    Object.assign(pr, request);
    return Promise.resolve(ref(pr));
  }
}

function ref(pr: FakePullRequest): PullRequestRef {
  return { number: pr.number, url: pr.url, draft: pr.draft };
}
