import { AppError } from '@caravel/errors';
import type {
  ChannelMessage,
  LinearPort,
  NewTrackerIssue,
  TrackerContainer,
  TrackerIssue,
  TrackerIssueChanges,
} from '@caravel/tools';
import { findMarked, withMarker } from '../reply/idempotency-marker.js';
import type { LinearApi } from './linear-api.js';

const ISSUE_FIELDS = `id identifier title description url priority
  state { name } team { id key name } assignee { name email }`;

const ISSUE_QUERY = `query CaravelIssue($id: String!) { issue(id: $id) { ${ISSUE_FIELDS} } }`;
const COMMENTS_QUERY = `query CaravelIssueComments($id: String!, $first: Int) {
  issue(id: $id) { comments(first: $first) { nodes { id body createdAt user { name email } } } }
}`;
const TEAMS_QUERY = `query CaravelTeams { teams(first: 100) { nodes { id key name } } }`;
const SEARCH_QUERY = `query CaravelSearchIssues($term: String!, $first: Int) {
  searchIssues(term: $term, first: $first) { nodes { ${ISSUE_FIELDS} } }
}`;

interface IssueJson {
  id: string;
  identifier: string;
  title: string;
  description?: string | null;
  url: string;
  state?: { name: string } | null;
  assignee?: { name: string; email: string } | null;
}

interface CommentJson {
  id: string;
  body: string;
  createdAt: string;
  user?: { name: string; email: string } | null;
}

function toIssue(issue: IssueJson): TrackerIssue {
  return {
    id: issue.id,
    key: issue.identifier,
    title: issue.title,
    description: issue.description ?? '',
    url: issue.url,
    ...(issue.state ? { status: issue.state.name } : {}),
    ...(issue.assignee ? { assignee: issue.assignee.email } : {}),
  };
}

function payloadFailed(action: string): AppError {
  return new AppError('DEPENDENCY_UNAVAILABLE', `Linear did not ${action}`, { retryable: false });
}

/**
 * Linear as an issue tracker: typed SDK mutations for writes, compact GraphQL reads through the
 * SDK's transport. Issues may be addressed by id or identifier (`ENG-12`); text is markdown,
 * which is Linear's own format.
 */
export class LinearTracker implements LinearPort {
  constructor(private readonly api: LinearApi) {}

  async comment(issue: string, markdown: string): Promise<{ id: string }> {
    const posted = await this.api.sdk(`comment on ${issue}`, (c) =>
      c.createComment({ issueId: issue, body: markdown }),
    );
    if (!posted.success || !posted.commentId) throw payloadFailed(`post the comment on ${issue}`);
    return { id: posted.commentId };
  }

  /** Reacts to a comment with an emoji (`👀`); Linear keeps one per user, comment and emoji. */
  async reactToComment(commentId: string, emoji: string): Promise<void> {
    const reacted = await this.api.sdk(`react to comment ${commentId}`, (c) =>
      c.createReaction({ commentId, emoji }),
    );
    if (!reacted.success) throw payloadFailed(`react to comment ${commentId}`);
  }

  /** Comments once per `idempotencyKey` (a hidden marker looked for among the comments). */
  async commentOnce(
    issue: string,
    markdown: string,
    idempotencyKey: string,
  ): Promise<{ id: string }> {
    const raw = await this.rawComments(issue, 250);
    const earlier = findMarked(raw, idempotencyKey);
    if (earlier) return { id: earlier.id };
    return this.comment(issue, withMarker(markdown, idempotencyKey));
  }

  async createIssue(issue: NewTrackerIssue): Promise<TrackerIssue> {
    const created = await this.api.sdk(`create an issue in team ${issue.container}`, (c) =>
      c.createIssue({
        teamId: issue.container,
        title: issue.title,
        ...(issue.description === undefined ? {} : { description: issue.description }),
        ...(issue.priority === undefined ? {} : { priority: issue.priority }),
      }),
    );
    if (!created.success || !created.issueId) throw payloadFailed('create the issue');
    return this.getIssue(created.issueId);
  }

  async updateIssue(issue: string, changes: TrackerIssueChanges): Promise<TrackerIssue> {
    const updated = await this.api.sdk(`update ${issue}`, (c) => c.updateIssue(issue, changes));
    if (!updated.success) throw payloadFailed(`update ${issue}`);
    return this.getIssue(updated.issueId ?? issue);
  }

  async deleteIssue(issue: string): Promise<void> {
    const deleted = await this.api.sdk(`delete ${issue}`, (c) => c.deleteIssue(issue));
    if (!deleted.success) throw payloadFailed(`delete ${issue}`);
  }

  async getIssue(issue: string): Promise<TrackerIssue> {
    const data = await this.api.query<{ issue: IssueJson }>(`read ${issue}`, ISSUE_QUERY, {
      id: issue,
    });
    return toIssue(data.issue);
  }

  async getComments(issue: string, limit: number): Promise<ChannelMessage[]> {
    return (await this.rawComments(issue, limit)).map((comment) => ({
      id: comment.id,
      author: comment.user?.email ?? comment.user?.name ?? 'unknown',
      text: comment.body,
      at: comment.createdAt,
    }));
  }

  async listContainers(): Promise<TrackerContainer[]> {
    const data = await this.api.query<{ teams: { nodes: TrackerContainer[] } }>(
      'list teams',
      TEAMS_QUERY,
      {},
    );
    return data.teams.nodes.map(({ id, key, name }) => ({ id, key, name }));
  }

  async searchIssues(query: string, limit: number): Promise<TrackerIssue[]> {
    const data = await this.api.query<{ searchIssues: { nodes: IssueJson[] } }>(
      'search issues',
      SEARCH_QUERY,
      { term: query, first: limit },
    );
    return data.searchIssues.nodes.map(toIssue);
  }

  private async rawComments(issue: string, limit: number): Promise<CommentJson[]> {
    const data = await this.api.query<{ issue: { comments: { nodes: CommentJson[] } } }>(
      `read the comments of ${issue}`,
      COMMENTS_QUERY,
      { id: issue, first: limit },
    );
    return data.issue.comments.nodes;
  }
}
