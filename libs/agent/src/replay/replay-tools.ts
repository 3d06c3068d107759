import { AppError } from '@caravel/errors';
import {
  curatedTools,
  type CaravelTool,
  type CommitOutcome,
  type CommitRequest,
  type PullRequestDraft,
  type PullRequestRef,
  type PullRequestText,
  type ReplyChannel,
  type ReplyReceipt,
  type ScmPort,
  type ToolOptions,
  type ToolSandbox,
} from '@caravel/tools';

const GIT_TIMEOUT_MS = 60_000;

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A reply channel that keeps replies instead of posting them (a replay talks to no one). */
export class RecordingReplyChannel implements ReplyChannel {
  readonly replies: string[] = [];

  reply(text: string): Promise<ReplyReceipt> {
    this.replies.push(text);
    return Promise.resolve({ messageId: `replay-${this.replies.length}` });
  }
}

/** Where a replay's commits go and how its "pull request" is named. */
export interface SandboxCommitScmOptions {
  /** The run's branch (what `commit_and_open_pr` reports). */
  branch: string;
  /** The pull request's address as the run reported it (e.g. `<clone url>#<branch>`). */
  pullRequestUrl: string;
}

/**
 * An SCM for replays: commits inside the sandbox, like the run did, and publishes nothing (no
 * push, no pull request). The "pull request" is recorded once, as a plain git remote's is.
 */
export class SandboxCommitScm implements ScmPort {
  private pullRequest: PullRequestRef | null = null;

  constructor(
    private readonly sandbox: ToolSandbox,
    private readonly options: SandboxCommitScmOptions,
  ) {}

  async commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    const status = await this.git('git add -A && git status --porcelain');
    if (status.trim() === '') return { branch: this.options.branch, commitSha: null };
    await this.git(`git commit --quiet -m ${shellQuote(request.message)}`);
    const sha = (await this.git('git rev-parse HEAD')).trim();
    return { branch: this.options.branch, commitSha: sha };
  }

  findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    return Promise.resolve(branch === this.options.branch ? this.pullRequest : null);
  }

  openPullRequest(_request: PullRequestDraft): Promise<PullRequestRef> {
    this.pullRequest = { number: 0, url: this.options.pullRequestUrl, draft: true };
    return Promise.resolve(this.pullRequest);
  }

  updatePullRequest(_number: number, _request: PullRequestText): Promise<PullRequestRef> {
    if (this.pullRequest === null) {
      return Promise.reject(new AppError('NOT_FOUND', 'no branch has been published yet'));
    }
    return Promise.resolve(this.pullRequest);
  }

  private async git(command: string): Promise<string> {
    const result = await this.sandbox.exec({ command, timeoutMs: GIT_TIMEOUT_MS });
    if (result.exitCode !== 0) {
      throw new AppError('PRECONDITION_FAILED', `${command} failed: ${result.output.trim()}`);
    }
    return result.output;
  }
}

/** The curated tools bound to a replay's sandbox, its commit-only SCM and a recording channel. */
export function replayTools(
  sandbox: ToolSandbox,
  scm: SandboxCommitScmOptions,
  options: Partial<ToolOptions> = {},
): CaravelTool[] {
  return curatedTools(
    {
      sandbox,
      channel: new RecordingReplyChannel(),
      scm: new SandboxCommitScm(sandbox, scm),
    },
    options,
  );
}
