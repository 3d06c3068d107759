import {
  textOf,
  type FakeResponse,
  type LoopbackApi,
  type RecordedCall,
} from '../http/loopback-api.js';
import {
  listSourcePulls,
  registerSourceRoutes,
  sourcePullDetail,
  SourcePulls,
} from './source-pulls.js';

/** A comment as the fake stores it (issue/PR conversation or review comment). */
export interface FakeGitHubComment {
  id: number;
  body: string;
  user: { login: string; type: string };
  html_url: string;
  created_at: string;
  /** For review-comment replies: the comment answered. */
  in_reply_to_id?: number;
}

/** A pull request as the fake stores it. */
export interface FakeGitHubPull {
  number: number;
  title: string;
  body: string;
  draft: boolean;
  state: 'open' | 'closed';
  head: string;
  base: string;
  requestedReviewers: string[];
  /**
   * The head commit, when a test set one or its branch (in the served repository, not a fork's)
   * was pushed to through the fake since (GitHub always knows it; the fake only then).
   */
  headSha?: string;
  /** `owner/name` holding the head branch (a fork), null for a deleted fork; the base's else. */
  headRepository?: string | null;
  /** Who opened it. */
  author?: string;
  /** The base branch's commit the pull request is measured against (empty when not told). */
  baseSha?: string;
  /** GitHub's merge check: false is a conflict with the base, null while it is worked out. */
  mergeable?: boolean | null;
  /** GitHub's `mergeable_state` (`clean`, `dirty` for a conflict, `unknown`, …). */
  mergeableState?: string;
  /** When it was merged (`state` is then `closed`). */
  mergedAt?: string;
}

/** A reaction the fake recorded. */
export interface FakeGitHubReaction {
  subject: string;
  content: string;
  login: string;
  /** When it was made, as listed (the epoch unless a test seeded it). */
  at?: string;
}

const REACTIONS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'];

/** In-memory GitHub objects, keyed by `owner/name` (lower case). */
export class GitHubState {
  readonly repositories = new Map<string, { defaultBranch: string; installationId: number }>();
  readonly issueComments = new Map<string, FakeGitHubComment[]>();
  readonly reviewComments: FakeGitHubComment[] = [];
  readonly pulls = new Map<string, FakeGitHubPull[]>();
  readonly reactions: FakeGitHubReaction[] = [];
  /** Organization members (lower case), by organization (lower case). */
  readonly orgMembers = new Map<string, Set<string>>();
  /** Those of {@link orgMembers} who are the organization's owners (role `admin`). */
  readonly orgAdmins = new Map<string, Set<string>>();
  /** Source repositories' merged PRs, issues and reported permissions (farm tests). */
  readonly source = new SourcePulls();
  private nextId = 1000;

  /**
   * @param origin the fake's origin, for `html_url`s
   * @param implicit a repository known without {@link repositories} (a bare repo on disk)
   */
  constructor(
    readonly origin: () => string,
    private readonly implicit: (key: string) => boolean = () => false,
  ) {}

  /** A repository by `owner/name` (lower case), declared or implicit. */
  repository(key: string): { defaultBranch: string; installationId: number } | undefined {
    const declared = this.repositories.get(key);
    if (declared) return declared;
    return this.implicit(key) ? { defaultBranch: 'main', installationId: 1 } : undefined;
  }

  id(): number {
    this.nextId += 1;
    return this.nextId;
  }

  comment(repo: string, body: string, login: string, anchor: string): FakeGitHubComment {
    const id = this.id();
    return {
      id,
      body,
      user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
      html_url: `${this.origin()}/${repo}/${anchor}#comment-${id}`,
      created_at: new Date(0).toISOString(),
    };
  }

  pullJson(repo: string, pull: FakeGitHubPull): Record<string, unknown> {
    const [owner] = repo.split('/');
    const headRepo = pull.headRepository === undefined ? repo : pull.headRepository;
    const [headOwner, headName] = headRepo?.split('/') ?? [];
    const headRepoJson = headRepo === null ? null : { name: headName, owner: { login: headOwner } };
    return {
      number: pull.number,
      title: pull.title,
      body: pull.body,
      draft: pull.draft,
      state: pull.state,
      html_url: `${this.origin()}/${repo}/pull/${pull.number}`,
      head: {
        ref: pull.head,
        label: `${owner}:${pull.head}`,
        sha: pull.headSha ?? '',
        repo: headRepoJson,
      },
      base: { ref: pull.base, sha: pull.baseSha ?? '' },
      user: { login: pull.author ?? 'octocat', type: 'User' },
      requested_reviewers: pull.requestedReviewers.map((login) => ({ login })),
      ...(pull.mergeable !== undefined
        ? { mergeable: pull.mergeable, mergeable_state: pull.mergeableState ?? 'unknown' }
        : {}),
      ...(pull.mergedAt ? { merged: true, merged_at: pull.mergedAt } : {}),
    };
  }
}

/** Who a call is, once authenticated: the login the fake attributes writes to. */
export type CallerOf = (call: RecordedCall) => string;

const repoKey = (p: Record<string, string>): string => `${p['owner']}/${p['repo']}`.toLowerCase();
const notFound: FakeResponse = { status: 404, body: { message: 'Not Found' } };
const text = (call: RecordedCall, field: string): string => textOf(call.body?.[field]);

/** Registers the REST endpoints Caravel uses on `api`, over `state`. */
export function registerGitHubRoutes(api: LoopbackApi, state: GitHubState, caller: CallerOf): void {
  api.route('GET', '/repos/:owner/:repo', (_call, p) => {
    const repo = state.repository(repoKey(p));
    if (!repo) return notFound;
    const [owner, name] = repoKey(p).split('/');
    const body = { name, full_name: `${owner}/${name}`, default_branch: repo.defaultBranch };
    const permissions = state.source.permissions.get(repoKey(p));
    return {
      status: 200,
      body: { ...body, private: true, ...(permissions ? { permissions } : {}) },
    };
  });
  api.route('GET', '/repos/:owner/:repo/installation', (_call, p) => {
    const repo = state.repository(repoKey(p));
    return repo ? { status: 200, body: { id: repo.installationId } } : notFound;
  });
  api.route('GET', '/orgs/:org/members/:username', (_call, p) => {
    const members = state.orgMembers.get(String(p['org']).toLowerCase());
    const member = members?.has(String(p['username']).toLowerCase()) ?? false;
    // GitHub answers 204 (no body) for a member and 404 otherwise.
    return member ? { status: 204 } : notFound;
  });
  api.route('GET', '/orgs/:org/memberships/:username', (_call, p) => {
    const org = String(p['org']).toLowerCase();
    const login = String(p['username']).toLowerCase();
    if (!state.orgMembers.get(org)?.has(login)) return notFound;
    const role = state.orgAdmins.get(org)?.has(login) ? 'admin' : 'member';
    const names = { organization: { login: p['org'] }, user: { login: p['username'] } };
    return { status: 200, body: { state: 'active', role, ...names } };
  });
  // The App's installation on an organization: the one of the repositories it owns.
  api.route('GET', '/orgs/:org/installation', (_call, p) => {
    const owned = `${String(p['org']).toLowerCase()}/`;
    const repo = [...state.repositories].find(([fullName]) => fullName.startsWith(owned));
    return repo ? { status: 200, body: { id: repo[1].installationId } } : notFound;
  });
  registerComments(api, state, caller);
  registerSourceRoutes(api, state.source, () => state.origin());
  registerPulls(api, state);
}

function registerComments(api: LoopbackApi, state: GitHubState, caller: CallerOf): void {
  api.route('GET', '/repos/:owner/:repo/issues/:number/comments', (call, p) => {
    const all = state.issueComments.get(`${repoKey(p)}#${p['number']}`) ?? [];
    const perPage = Number(call.query['per_page'] ?? 30);
    const page = Number(call.query['page'] ?? 1);
    return { status: 200, body: all.slice((page - 1) * perPage, page * perPage) };
  });
  api.route('POST', '/repos/:owner/:repo/issues/:number/comments', (call, p) => {
    const key = `${repoKey(p)}#${p['number']}`;
    const comment = state.comment(
      repoKey(p),
      text(call, 'body'),
      caller(call),
      `issues/${p['number']}`,
    );
    state.issueComments.set(key, [...(state.issueComments.get(key) ?? []), comment]);
    return { status: 201, body: comment };
  });
  api.route('POST', '/repos/:owner/:repo/pulls/:number/comments/:id/replies', (call, p) => {
    const parent = state.reviewComments.find((c) => c.id === Number(p['id']));
    if (!parent) return notFound;
    const reply = state.comment(
      repoKey(p),
      text(call, 'body'),
      caller(call),
      `pull/${p['number']}`,
    );
    state.reviewComments.push({ ...reply, in_reply_to_id: parent.id });
    return { status: 201, body: { ...reply, in_reply_to_id: parent.id } };
  });
  for (const kind of ['issues', 'pulls'] as const) {
    api.route('POST', `/repos/:owner/:repo/${kind}/comments/:id/reactions`, (call, p) => {
      const content = text(call, 'content');
      if (!REACTIONS.includes(content)) {
        return {
          status: 422,
          body: { message: 'Validation Failed', errors: [{ field: 'content' }] },
        };
      }
      const subject = `${repoKey(p)}:${kind}-comment:${p['id']}`;
      const login = caller(call);
      const existing = state.reactions.find(
        (r) => r.subject === subject && r.content === content && r.login === login,
      );
      if (!existing) state.reactions.push({ subject, content, login });
      return { status: existing ? 200 : 201, body: { id: state.id(), content, user: { login } } };
    });
    api.route('GET', `/repos/:owner/:repo/${kind}/comments/:id/reactions`, (_call, p) => {
      const subject = `${repoKey(p)}:${kind}-comment:${p['id']}`;
      const listed = state.reactions
        .filter((r) => r.subject === subject)
        .map((r, i) => ({
          id: i + 1,
          content: r.content,
          user: { login: r.login, type: r.login.endsWith('[bot]') ? 'Bot' : 'User' },
          created_at: r.at ?? new Date(0).toISOString(),
        }));
      return { status: 200, body: listed };
    });
  }
}

function registerPulls(api: LoopbackApi, state: GitHubState): void {
  const find = (p: Record<string, string>): FakeGitHubPull | undefined =>
    state.pulls.get(repoKey(p))?.find((pull) => pull.number === Number(p['number']));
  api.route('GET', '/repos/:owner/:repo/pulls', (call, p) => {
    const source = state.source.pulls.get(repoKey(p));
    if (source) return listSourcePulls(call, state.origin(), source);
    const wanted = call.query['state'] ?? 'open';
    const head = call.query['head']?.split(':').pop();
    const list = (state.pulls.get(repoKey(p)) ?? []).filter(
      (pull) => (wanted === 'all' || pull.state === wanted) && (!head || pull.head === head),
    );
    return { status: 200, body: list.map((pull) => state.pullJson(repoKey(p), pull)) };
  });
  api.route('POST', '/repos/:owner/:repo/pulls', (call, p) => {
    const list = state.pulls.get(repoKey(p)) ?? [];
    const head = text(call, 'head').split(':').pop() ?? '';
    if (list.some((pull) => pull.head === head && pull.state === 'open')) {
      const message = `A pull request already exists for ${head}.`;
      return { status: 422, body: { message: 'Validation Failed', errors: [{ message }] } };
    }
    const pull: FakeGitHubPull = {
      number: state.id(),
      title: text(call, 'title'),
      body: text(call, 'body'),
      draft: call.body?.['draft'] === true,
      state: 'open',
      head,
      base: text(call, 'base'),
      requestedReviewers: [],
    };
    state.pulls.set(repoKey(p), [...list, pull]);
    return { status: 201, body: state.pullJson(repoKey(p), pull) };
  });
  api.route('GET', '/repos/:owner/:repo/pulls/:number', (_call, p) => {
    const source = state.source.find(repoKey(p), Number(p['number']));
    if (source) return sourcePullDetail(source, state.source.holds.get(source.pull.number));
    const pull = find(p);
    return pull ? { status: 200, body: state.pullJson(repoKey(p), pull) } : notFound;
  });
  api.route('PATCH', '/repos/:owner/:repo/pulls/:number', (call, p) => {
    const pull = find(p);
    if (!pull) return notFound;
    if (typeof call.body?.['title'] === 'string') pull.title = call.body['title'];
    if (typeof call.body?.['body'] === 'string') pull.body = call.body['body'];
    return { status: 200, body: state.pullJson(repoKey(p), pull) };
  });
  api.route('POST', '/repos/:owner/:repo/pulls/:number/requested_reviewers', (call, p) => {
    const pull = find(p);
    if (!pull) return notFound;
    const reviewers = Array.isArray(call.body?.['reviewers']) ? call.body['reviewers'] : [];
    for (const login of reviewers.map(String)) {
      if (!pull.requestedReviewers.includes(login)) pull.requestedReviewers.push(login);
    }
    return { status: 201, body: state.pullJson(repoKey(p), pull) };
  });
}
