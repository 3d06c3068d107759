import { AppError, isAppError } from '@caravel/errors';
import type {
  IssueDetails,
  MergedPullRequest,
  PullRequestDetails,
  ScmChangedFile,
  ScmComment,
  ScmFileReadPort,
  ScmHistoryPort,
  ScmReadPort,
} from '@caravel/tools';
import type { GitHubApi, GitHubRepository } from './github-client.js';

interface UserJson {
  login: string;
  type?: string;
}

interface CommentJson {
  id: number;
  body?: string | null;
  user?: UserJson | null;
  author_association?: string;
  created_at?: string;
  html_url?: string;
  path?: string;
  line?: number | null;
  original_line?: number | null;
  in_reply_to_id?: number;
}

const isBot = (user: UserJson | null | undefined): boolean =>
  user?.type === 'Bot' || (user?.login.endsWith('[bot]') ?? false);

function toComment(json: CommentJson): ScmComment {
  const line = json.line ?? json.original_line ?? undefined;
  return {
    id: json.id,
    author: json.user?.login ?? 'ghost',
    body: json.body ?? '',
    bot: isBot(json.user),
    ...(json.author_association ? { association: json.author_association } : {}),
    ...(json.created_at ? { at: json.created_at } : {}),
    ...(json.html_url ? { url: json.html_url } : {}),
    ...(json.path ? { path: json.path } : {}),
    ...(line ? { line } : {}),
    ...(json.in_reply_to_id ? { inReplyTo: json.in_reply_to_id } : {}),
  };
}

/**
 * One CI signal at a commit as GitHub lists it: a check run or a commit status. Names and links
 * are whoever configured the CI's: the caller validates them and treats them as untrusted.
 */
export type CommitCheckJson =
  | { kind: 'check_run'; name: string; status: string; conclusion: string | null; url?: string }
  | { kind: 'status'; name: string; state: string; url?: string };

/** A reaction (`+1`, `-1`, `eyes`, …) on a comment, by whom and when. */
export interface ScmReaction {
  content: string;
  author: string;
  bot: boolean;
  at: string;
}

/** How many pages of closed pull requests a crawl reads at most (100 each). */
const MERGED_PAGES = 5;

/** The last `limit` of a list GitHub gives oldest first (the recent conversation matters most). */
const recent = <T>(items: readonly T[], limit: number): T[] => items.slice(-limit);

/**
 * The read side of GitHub for one repository ({@link ScmReadPort}): pull requests (with their
 * head's repository, so a fork is recognised), their files, review comments and conversation,
 * and issues, and merged pull requests for a crawl of the repository's history. What people wrote
 * is returned as it is; the tools and the runner mark it untrusted.
 */
export class GitHubScmReader implements ScmReadPort, ScmHistoryPort, ScmFileReadPort {
  constructor(
    private readonly api: GitHubApi,
    private readonly repository: GitHubRepository,
  ) {}

  private get repo(): { owner: string; repo: string } {
    return { owner: this.repository.owner, repo: this.repository.name };
  }

  async getPullRequest(number: number): Promise<PullRequestDetails> {
    const { data } = await this.api.call(this.repository, `read pull request #${number}`, (o) =>
      o.rest.pulls.get({ ...this.repo, pull_number: number }),
    );
    const headRepo = data.head.repo;
    return {
      number: data.number,
      title: data.title,
      body: data.body ?? '',
      author: data.user?.login ?? null,
      ...(data.author_association ? { association: data.author_association } : {}),
      state: data.merged_at ? 'merged' : data.state,
      draft: data.draft ?? false,
      url: data.html_url,
      head: {
        ref: data.head.ref,
        sha: data.head.sha,
        repository: headRepo ? { owner: headRepo.owner.login, name: headRepo.name } : null,
      },
      base: { ref: data.base.ref, sha: data.base.sha },
      ...(data.mergeable !== undefined ? { mergeable: data.mergeable } : {}),
      ...(typeof data.changed_files === 'number'
        ? { changedFiles: data.changed_files, additions: data.additions, deletions: data.deletions }
        : {}),
    };
  }

  async listPullRequestFiles(number: number, limit: number): Promise<ScmChangedFile[]> {
    const files = await this.api.call(this.repository, `list files of #${number}`, (o) =>
      o.paginate(o.rest.pulls.listFiles, { ...this.repo, pull_number: number, per_page: 100 }),
    );
    return files.slice(0, limit).map((file) => ({
      path: file.filename,
      status: file.status,
      additions: file.additions,
      deletions: file.deletions,
      ...(file.patch ? { patch: file.patch } : {}),
    }));
  }

  /**
   * A file's text at `ref` (a sha or a branch; the repository's default branch when absent),
   * through the contents API (files up to 1 MB). A path the ref does not hold fails NOT_FOUND.
   */
  async readFileAt(path: string, ref?: string): Promise<string> {
    const at = ref ?? 'the default branch';
    const { data } = await this.api.call(this.repository, `read ${path} at ${at}`, (o) =>
      o.rest.repos.getContent({ ...this.repo, path, ...(ref ? { ref } : {}) }),
    );
    if (Array.isArray(data) || data.type !== 'file') {
      throw new AppError('BAD_REQUEST', `${path} is not a file at ${ref?.slice(0, 12) ?? at}.`);
    }
    if (!('content' in data) || (data.encoding !== 'base64' && data.size > 0)) {
      throw new AppError(
        'BAD_REQUEST',
        `${path} is too large to read through GitHub (${data.size} bytes); read its diff.`,
      );
    }
    return Buffer.from(data.content, 'base64').toString('utf8');
  }

  /**
   * The paths of every file at `ref` (a sha or a branch; GitHub's `HEAD`, the default branch,
   * when absent), in one call (the recursive tree). `truncated` when GitHub cut the listing short
   * (a very large repository: over 100,000 entries or 7 MB), whose paths are then only some. An
   * empty repository lists nothing; a ref the repository does not hold fails NOT_FOUND.
   */
  async listFilesAt(ref?: string): Promise<{ paths: string[]; truncated: boolean }> {
    const at = ref ?? 'HEAD';
    const listing = await this.api
      .call(this.repository, `list the files at ${ref ?? 'the default branch'}`, (o) =>
        o.rest.git.getTree({ ...this.repo, tree_sha: at, recursive: 'true' }),
      )
      .catch((error: unknown) => {
        // GitHub answers 409 for the tree of a repository with no commit yet.
        if (isAppError(error) && error.code === 'CONFLICT') return null;
        throw error;
      });
    if (!listing) return { paths: [], truncated: false };
    const { tree, truncated } = listing.data;
    const paths = tree.flatMap((entry) =>
      entry.type === 'blob' && entry.path ? [entry.path] : [],
    );
    return { paths, truncated };
  }

  async listReviewComments(number: number, limit: number): Promise<ScmComment[]> {
    const comments = await this.api.call(
      this.repository,
      `list review comments of #${number}`,
      (o) =>
        o.paginate(o.rest.pulls.listReviewComments, {
          ...this.repo,
          pull_number: number,
          per_page: 100,
        }),
    );
    return recent(comments as CommentJson[], limit).map(toComment);
  }

  async getIssue(number: number): Promise<IssueDetails> {
    const { data } = await this.api.call(this.repository, `read issue #${number}`, (o) =>
      o.rest.issues.get({ ...this.repo, issue_number: number }),
    );
    return {
      number: data.number,
      title: data.title,
      body: data.body ?? '',
      author: data.user?.login ?? null,
      state: data.state,
      labels: data.labels.map((label) => (typeof label === 'string' ? label : (label.name ?? ''))),
      url: data.html_url,
      pullRequest: data.pull_request !== undefined && data.pull_request !== null,
    };
  }

  async listIssueComments(number: number, limit: number): Promise<ScmComment[]> {
    const comments = await this.api.call(this.repository, `list comments of #${number}`, (o) =>
      o.paginate(o.rest.issues.listComments, { ...this.repo, issue_number: number, per_page: 100 }),
    );
    return recent(comments as CommentJson[], limit).map(toComment);
  }

  async listMergedPullRequests(limit: number): Promise<MergedPullRequest[]> {
    const merged: MergedPullRequest[] = [];
    for (let page = 1; merged.length < limit && page <= MERGED_PAGES; page += 1) {
      const { data } = await this.api.call(this.repository, 'list closed pull requests', (o) =>
        o.rest.pulls.list({
          ...this.repo,
          state: 'closed',
          sort: 'created',
          direction: 'desc',
          per_page: 100,
          page,
        }),
      );
      for (const pull of data) {
        if (!pull.merged_at) continue;
        merged.push({
          number: pull.number,
          title: pull.title,
          author: pull.user?.login ?? null,
          mergedAt: pull.merged_at,
          url: pull.html_url,
        });
      }
      if (data.length < 100) break;
    }
    return merged.slice(0, limit);
  }

  /** The check runs at a commit (`ref`: a sha or a branch), the first 100. */
  async listCheckRuns(ref: string): Promise<CommitCheckJson[]> {
    const { data } = await this.api.call(this.repository, `list check runs of ${ref}`, (o) =>
      o.rest.checks.listForRef({ ...this.repo, ref, per_page: 100 }),
    );
    return data.check_runs.map((run) => {
      const url = run.details_url ?? run.html_url;
      return {
        kind: 'check_run' as const,
        name: run.name,
        status: run.status,
        conclusion: run.conclusion ?? null,
        ...(url ? { url } : {}),
      };
    });
  }

  /** The latest commit status of each context at a commit (`ref`: a sha or a branch). */
  async listCommitStatuses(ref: string): Promise<CommitCheckJson[]> {
    const { data } = await this.api.call(this.repository, `read the status of ${ref}`, (o) =>
      o.rest.repos.getCombinedStatusForRef({ ...this.repo, ref, per_page: 100 }),
    );
    return data.statuses.map((status) => ({
      kind: 'status' as const,
      name: status.context,
      state: status.state,
      ...(status.target_url ? { url: status.target_url } : {}),
    }));
  }

  /** Whether `login` collaborates on the repository (GitHub answers 204, or 404 for no). */
  async isCollaborator(login: string): Promise<boolean> {
    return this.api.call(this.repository, `check whether ${login} collaborates`, async (o) => {
      try {
        const answer = await o.rest.repos.checkCollaborator({ ...this.repo, username: login });
        return (answer.status as number) === 204;
      } catch (error) {
        if ((error as { status?: number }).status === 404) return false;
        throw error;
      }
    });
  }

  /** The reactions on a pull request review comment (the first 100). */
  async listReviewCommentReactions(commentId: number): Promise<ScmReaction[]> {
    const { data } = await this.api.call(
      this.repository,
      `list reactions of review comment ${commentId}`,
      (o) =>
        o.rest.reactions.listForPullRequestReviewComment({
          ...this.repo,
          comment_id: commentId,
          per_page: 100,
        }),
    );
    return data.map((reaction) => ({
      content: reaction.content,
      author: reaction.user?.login ?? 'ghost',
      bot: isBot(reaction.user),
      at: reaction.created_at,
    }));
  }
}
