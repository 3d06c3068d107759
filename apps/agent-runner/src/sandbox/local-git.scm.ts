import type {
  CommitOutcome,
  CommitRequest,
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ScmPort,
} from '@caravel/tools';
import type { ThreadWorkspace } from './thread-sandbox.service.js';
import { hostGit, shellQuote } from '@caravel/sandbox';

/**
 * SCM for repositories cloned from a local path or a plain git URL: commits in the sandbox, pushes
 * the branch from the host (the sandbox has no network). A plain git remote has no pull requests,
 * so the "pull request" is the pushed branch, recorded once per thread.
 */
export class LocalGitScm implements ScmPort {
  private pullRequest: PullRequestRef | null = null;

  constructor(private readonly workspace: ThreadWorkspace) {}

  async commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    const { sandbox, branch, hostWorkdir } = this.workspace;
    const status = await sandbox.exec('git add -A && git status --porcelain', {
      timeoutMs: 60_000,
    });
    let commitSha: string | null = null;
    if (status.output.trim() !== '') {
      const commit = await sandbox.exec(`git commit --quiet -m ${shellQuote(request.message)}`, {
        timeoutMs: 60_000,
      });
      if (commit.exitCode !== 0) throw new Error(`git commit failed: ${commit.output.trim()}`);
      commitSha = await hostGit(hostWorkdir, ['rev-parse', 'HEAD']);
    }
    if (await this.hasOrigin())
      await hostGit(hostWorkdir, ['push', '--quiet', '--force-with-lease', 'origin', branch]);
    return { branch, commitSha };
  }

  findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    return Promise.resolve(branch === this.workspace.branch ? this.pullRequest : null);
  }

  async openDraftPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    const origin = (await this.hasOrigin())
      ? await hostGit(this.workspace.hostWorkdir, ['remote', 'get-url', 'origin'])
      : this.workspace.hostWorkdir;
    this.pullRequest = { number: 0, url: `${origin}#${request.branch}`, draft: true };
    return this.pullRequest;
  }

  updatePullRequest(_number: number, _request: PullRequestText): Promise<PullRequestRef> {
    if (!this.pullRequest) throw new Error('no branch has been published yet');
    return Promise.resolve(this.pullRequest);
  }

  private async hasOrigin(): Promise<boolean> {
    const remotes = await hostGit(this.workspace.hostWorkdir, ['remote']);
    return remotes.split('\n').includes('origin');
  }
}
