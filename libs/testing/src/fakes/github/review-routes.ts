import { textOf, type FakeResponse, type LoopbackApi } from '../http/loopback-api.js';
import type { AuthorAssociationOf } from './author-association.js';
import type { CallerOf, FakeGitHubComment, GitHubState } from './github-routes.js';

type Side = 'LEFT' | 'RIGHT';

/** A pull request review as the fake stores it (GitHub's wire shape). */
export interface FakeReview {
  id: number;
  node_id: string;
  user: { login: string; type: string };
  body: string;
  state: 'COMMENTED' | 'APPROVED' | 'CHANGES_REQUESTED' | 'DISMISSED';
  commit_id: string;
  submitted_at: string;
  html_url: string;
  pull_request_url: string;
  author_association: string;
}

/** An inline review comment (the first of its thread) or a reply, as GitHub lists it. */
export interface FakeReviewComment extends FakeGitHubComment {
  node_id: string;
  pull_request_review_id: number | null;
  path: string;
  line: number | null;
  start_line: number | null;
  side: Side;
  start_side: Side | null;
  commit_id: string;
  original_commit_id: string;
  subject_type: 'line' | 'file';
  diff_hunk: string;
  updated_at: string;
}

/** A review thread (GraphQL `PullRequestReviewThread`). */
export interface FakeReviewThread {
  id: string;
  isResolved: boolean;
  /** The thread's first comment (replies answer it). */
  commentIds: number[];
}

/** A check run as the fake stores it. */
export interface FakeCheckRun {
  id: number;
  node_id: string;
  name: string;
  head_sha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  details_url: string | null;
  started_at: string | null;
  completed_at: string | null;
  output: { title: string | null; summary: string | null };
  html_url: string;
}

/** Lines GitHub accepts a comment on, per file and side (the pull request's diff hunks). */
export type CommentableLines = Record<string, { RIGHT?: number[]; LEFT?: number[] }>;

/** Reviews, review comments and threads, check runs: the reviewer's side of the fake. */
export class GitHubReviewState {
  /** Reviews by `owner/name#number`. */
  readonly reviews = new Map<string, FakeReview[]>();
  /** Inline comments by `owner/name#number` (replies are in `GitHubState.reviewComments`). */
  readonly comments = new Map<string, FakeReviewComment[]>();
  readonly threads = new Map<string, FakeReviewThread[]>();
  /** Check runs by `owner/name`. */
  readonly checkRuns = new Map<string, FakeCheckRun[]>();
  /** Where the fake places comments, by `owner/name#number`; anywhere when absent. */
  readonly commentable = new Map<string, CommentableLines>();
  /** Who opened each pull request (`owner/name#number`): GitHub refuses verdicts on one's own. */
  readonly authors = new Map<string, string>();
  /** Thread ids whose resolution the fake refuses (a `FORBIDDEN` GraphQL error). */
  readonly unresolvable = new Set<string>();

  /**
   * @param associationOf how GitHub relates an author to a repository: reviews and review
   * comments are listed with it (`author_association`), as of the listing
   */
  constructor(
    private readonly base: GitHubState,
    readonly associationOf: AuthorAssociationOf = () => 'NONE',
  ) {}

  nodeId(prefix: string): string {
    return `${prefix}_kwDO${this.base.id().toString(36)}`;
  }
}

const pullKey = (p: Record<string, string>): string =>
  `${p['owner']}/${p['repo']}#${p['number']}`.toLowerCase();
const repoKey = (p: Record<string, string>): string => `${p['owner']}/${p['repo']}`.toLowerCase();
const notFound: FakeResponse = { status: 404, body: { message: 'Not Found' } };
const DOCS = 'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request';
const unprocessable = (errors: string[]): FakeResponse => ({
  status: 422,
  body: { message: 'Unprocessable Entity', errors, documentation_url: DOCS, status: '422' },
});
const REVIEW_STATES = {
  APPROVE: 'APPROVED',
  REQUEST_CHANGES: 'CHANGES_REQUESTED',
  COMMENT: 'COMMENTED',
} as const;

/** Registers reviews, review comments, review threads (GraphQL) and check runs on `api`. */
export function registerReviewRoutes(
  api: LoopbackApi,
  state: GitHubState,
  reviews: GitHubReviewState,
  caller: CallerOf,
): void {
  api.route('GET', '/repos/:owner/:repo/pulls/:number/reviews', (call, p) =>
    page(associated(reviews, p, reviews.reviews.get(pullKey(p)) ?? []), call.query),
  );
  api.route('POST', '/repos/:owner/:repo/pulls/:number/reviews', (call, p) => {
    const login = caller(call);
    const event = textOf(call.body?.['event']) as keyof typeof REVIEW_STATES;
    if (!(event in REVIEW_STATES)) return unprocessable(['event is not a review event']);
    if (event !== 'COMMENT' && reviews.authors.get(pullKey(p)) === login) {
      const what = event === 'APPROVE' ? 'approve' : 'request changes on';
      return unprocessable([`Can not ${what} your own pull request`]);
    }
    const comments = Array.isArray(call.body?.['comments'])
      ? (call.body['comments'] as Record<string, unknown>[])
      : [];
    const refused = placementErrors(comments, reviews.commentable.get(pullKey(p)));
    if (refused.length > 0) return unprocessable(refused);
    const review = newReview(state, reviews, p, login, {
      body: textOf(call.body?.['body']),
      state: REVIEW_STATES[event],
      commitId: textOf(call.body?.['commit_id']),
    });
    for (const comment of comments) addComment(state, reviews, p, review, comment, login);
    return { status: 200, body: review };
  });
  api.route('PUT', '/repos/:owner/:repo/pulls/:number/reviews/:id/dismissals', (_call, p) => {
    const review = reviews.reviews.get(pullKey(p))?.find((r) => r.id === Number(p['id']));
    if (!review) return notFound;
    if (review.state === 'COMMENTED') {
      return unprocessable(['Can not dismiss a commented pull request review']);
    }
    review.state = 'DISMISSED';
    return { status: 200, body: review };
  });
  api.route('GET', '/repos/:owner/:repo/pulls/:number/comments', (call, p) =>
    page(
      associated(reviews, p, withReplies(state, reviews.comments.get(pullKey(p)) ?? [])),
      call.query,
    ),
  );
  api.route('POST', '/graphql', (call) => graphql(reviews, call.body));
  registerCheckRuns(api, state, reviews);
}

/**
 * The pull request's inline comments and the replies to them (made through the REST replies
 * route, which keeps them in `state.reviewComments`), each reply listed with its parent's place.
 */
function withReplies(state: GitHubState, inline: FakeReviewComment[]): FakeReviewComment[] {
  const parents = new Map(inline.map((comment) => [comment.id, comment]));
  const replies = state.reviewComments.flatMap((reply) => {
    const parent =
      reply.in_reply_to_id === undefined ? undefined : parents.get(reply.in_reply_to_id);
    if (!parent || parents.has(reply.id)) return [];
    return [
      {
        ...parent,
        ...reply,
        node_id: `PRRC_kwDO${reply.id.toString(36)}`,
        pull_request_review_id: null,
        updated_at: reply.created_at,
      },
    ];
  });
  return [...inline, ...replies].sort((a, b) => a.id - b.id);
}

/** Each review or comment with its author's `author_association` as GitHub says it now. */
function associated<T extends { user: { login: string } }>(
  reviews: GitHubReviewState,
  p: Record<string, string>,
  listed: T[],
): (T & { author_association: string })[] {
  return listed.map((item) => ({
    ...item,
    author_association: reviews.associationOf(repoKey(p), item.user.login),
  }));
}

function page<T>(all: T[], query: Record<string, string>): FakeResponse {
  const perPage = Number(query['per_page'] ?? 30);
  const index = Number(query['page'] ?? 1);
  return { status: 200, body: all.slice((index - 1) * perPage, index * perPage) };
}

/** GitHub's refusals of comments it cannot place in the diff (it names no comment). */
function placementErrors(
  comments: Record<string, unknown>[],
  commentable: CommentableLines | undefined,
): string[] {
  if (!commentable) return [];
  for (const comment of comments) {
    const lines = commentable[textOf(comment['path'])];
    if (!lines) return ['Path could not be resolved'];
    const side = (textOf(comment['side']) || 'RIGHT') as Side;
    const placed = [comment['line'], comment['start_line']].filter((l) => l !== undefined);
    if (placed.some((line) => !(lines[side] ?? []).includes(Number(line)))) {
      return ['Line could not be resolved'];
    }
  }
  return [];
}

function newReview(
  state: GitHubState,
  reviews: GitHubReviewState,
  p: Record<string, string>,
  login: string,
  fields: { body: string; state: FakeReview['state']; commitId: string },
): FakeReview {
  const id = state.id();
  const pullUrl = `${state.origin()}/${repoKey(p)}/pull/${p['number']}`;
  const review: FakeReview = {
    id,
    node_id: `PRR_kwDO${id.toString(36)}`,
    user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
    body: fields.body,
    state: fields.state,
    commit_id: fields.commitId,
    submitted_at: new Date().toISOString(),
    html_url: `${pullUrl}#pullrequestreview-${id}`,
    pull_request_url: `${state.origin()}/repos/${repoKey(p)}/pulls/${p['number']}`,
    author_association: reviews.associationOf(repoKey(p), login),
  };
  reviews.reviews.set(pullKey(p), [...(reviews.reviews.get(pullKey(p)) ?? []), review]);
  return review;
}

function addComment(
  state: GitHubState,
  reviews: GitHubReviewState,
  p: Record<string, string>,
  review: FakeReview,
  input: Record<string, unknown>,
  login: string,
): void {
  const base = state.comment(repoKey(p), textOf(input['body']), login, `pull/${p['number']}`);
  const side = (textOf(input['side']) || 'RIGHT') as Side;
  const startLine = input['start_line'] === undefined ? null : Number(input['start_line']);
  const comment: FakeReviewComment = {
    ...base,
    html_url: `${state.origin()}/${repoKey(p)}/pull/${p['number']}#discussion_r${base.id}`,
    node_id: `PRRC_kwDO${base.id.toString(36)}`,
    pull_request_review_id: review.id,
    path: textOf(input['path']),
    line: Number(input['line']),
    start_line: startLine,
    side,
    start_side: startLine === null ? null : ((textOf(input['start_side']) || side) as Side),
    commit_id: review.commit_id,
    original_commit_id: review.commit_id,
    subject_type: 'line',
    diff_hunk: '',
    created_at: review.submitted_at,
    updated_at: review.submitted_at,
  };
  const key = pullKey(p);
  reviews.comments.set(key, [...(reviews.comments.get(key) ?? []), comment]);
  // The REST replies route looks parents up here.
  state.reviewComments.push(comment);
  const thread = { id: reviews.nodeId('PRRT'), isResolved: false, commentIds: [comment.id] };
  reviews.threads.set(key, [...(reviews.threads.get(key) ?? []), thread]);
}

/** The two GraphQL operations the reviewer sends: list a pull's threads, resolve one. */
function graphql(reviews: GitHubReviewState, body: Record<string, unknown> | null): FakeResponse {
  const query = textOf(body?.['query']);
  const variables = (body?.['variables'] ?? {}) as Record<string, unknown>;
  if (query.includes('resolveReviewThread')) {
    const threadId = textOf(variables['threadId']);
    const thread = [...reviews.threads.values()].flat().find((t) => t.id === threadId);
    if (!thread || reviews.unresolvable.has(threadId)) {
      const [type, message] = thread
        ? ['FORBIDDEN', 'Resource not accessible by integration']
        : ['NOT_FOUND', `Could not resolve to a node with the global id of '${threadId}'`];
      return graphqlError('resolveReviewThread', type, message);
    }
    thread.isResolved = true;
    return {
      status: 200,
      body: { data: { resolveReviewThread: { thread: { id: thread.id, isResolved: true } } } },
    };
  }
  if (query.includes('reviewThreads')) {
    const key = `${textOf(variables['owner'])}/${textOf(variables['name'])}#${Number(variables['number'])}`;
    const threads = reviews.threads.get(key.toLowerCase()) ?? [];
    const nodes = threads.map((thread) => ({
      id: thread.id,
      isResolved: thread.isResolved,
      comments: { nodes: thread.commentIds.slice(0, 1).map((id) => ({ databaseId: id })) },
    }));
    const connection = { pageInfo: { hasNextPage: false, endCursor: null }, nodes };
    return {
      status: 200,
      body: { data: { repository: { pullRequest: { reviewThreads: connection } } } },
    };
  }
  return graphqlError('query', 'UNKNOWN', 'The fake GitHub does not answer this query');
}

function graphqlError(path: string, type: string, message: string): FakeResponse {
  return {
    status: 200,
    body: {
      data: { [path]: null },
      errors: [{ type, path: [path], locations: [{ line: 2, column: 3 }], message }],
    },
  };
}

function registerCheckRuns(api: LoopbackApi, state: GitHubState, reviews: GitHubReviewState) {
  const find = (p: Record<string, string>): FakeCheckRun | undefined =>
    reviews.checkRuns.get(repoKey(p))?.find((run) => run.id === Number(p['id']));
  api.route('POST', '/repos/:owner/:repo/check-runs', (call, p) => {
    const name = textOf(call.body?.['name']);
    const headSha = textOf(call.body?.['head_sha']);
    if (!name || !headSha) return unprocessable(['name and head_sha are required']);
    const id = state.id();
    const run: FakeCheckRun = {
      id,
      node_id: `CR_kwDO${id.toString(36)}`,
      name,
      head_sha: headSha,
      status: 'queued',
      conclusion: null,
      details_url: null,
      started_at: null,
      completed_at: null,
      output: { title: null, summary: null },
      html_url: `${state.origin()}/${repoKey(p)}/runs/${id}`,
    };
    applyCheck(run, call.body ?? {});
    reviews.checkRuns.set(repoKey(p), [...(reviews.checkRuns.get(repoKey(p)) ?? []), run]);
    return { status: 201, body: run };
  });
  api.route('PATCH', '/repos/:owner/:repo/check-runs/:id', (call, p) => {
    const run = find(p);
    if (!run) return notFound;
    applyCheck(run, call.body ?? {});
    return { status: 200, body: run };
  });
  api.route('GET', '/repos/:owner/:repo/check-runs/:id', (_call, p) => {
    const run = find(p);
    return run ? { status: 200, body: run } : notFound;
  });
}

function applyCheck(run: FakeCheckRun, body: Record<string, unknown>): void {
  const status = textOf(body['status']);
  if (status === 'queued' || status === 'in_progress' || status === 'completed')
    run.status = status;
  if (typeof body['conclusion'] === 'string') {
    run.conclusion = body['conclusion'];
    run.status = 'completed';
  }
  if (typeof body['details_url'] === 'string') run.details_url = body['details_url'];
  if (typeof body['started_at'] === 'string') run.started_at = body['started_at'];
  if (typeof body['completed_at'] === 'string') run.completed_at = body['completed_at'];
  const output = body['output'] as { title?: unknown; summary?: unknown } | undefined;
  if (output) {
    run.output = {
      title: typeof output.title === 'string' ? output.title : run.output.title,
      summary: typeof output.summary === 'string' ? output.summary : run.output.summary,
    };
  }
}
