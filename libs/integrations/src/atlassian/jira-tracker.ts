import type {
  ChannelMessage,
  IssueTrackerPort,
  NewTrackerIssue,
  TrackerContainer,
  TrackerIssue,
  TrackerIssueChanges,
} from '@caravel/tools';
import { adfToMarkdown, markdownToAdf, type AdfNode } from '../markup/adf.js';
import { unexpectedAnswer, type AtlassianRest } from './atlassian-rest.js';

interface JiraIssueJson {
  id: string;
  key: string;
  fields: {
    summary?: string;
    description?: AdfNode | null;
    status?: { name?: string } | null;
    assignee?: { displayName?: string; emailAddress?: string } | null;
    creator?: { accountId?: string } | null;
  };
}

interface JiraCommentJson {
  id: string;
  body?: AdfNode | null;
  created?: string;
  author?: { displayName?: string; emailAddress?: string; accountId?: string };
  properties?: { key: string; value?: { idempotencyKey?: string } }[];
}

/** A Jira comment as the service account reads it back (never as a rule's body claims it). */
export interface JiraComment {
  id: string;
  author: { accountId: string; displayName?: string };
  /** The comment's body (ADF, the only form REST v3 returns it in) as markdown. */
  markdown: string;
}

/** The comment property carrying Caravel's idempotency key (ADF has no hidden comments). */
export const JIRA_IDEMPOTENCY_PROPERTY = 'caravel.idempotency';

const enc = encodeURIComponent;

/**
 * Jira Cloud (REST v3) as an issue tracker: descriptions and comments are converted between
 * markdown and ADF; issues are addressed by key. `commentOnce` stores its idempotency key as a
 * comment property and finds an earlier comment carrying it before posting again.
 */
export class JiraTracker implements IssueTrackerPort {
  constructor(
    private readonly rest: AtlassianRest,
    private readonly site: string,
  ) {}

  async comment(issue: string, markdown: string, idempotencyKey?: string): Promise<{ id: string }> {
    const properties = idempotencyKey
      ? [{ key: JIRA_IDEMPOTENCY_PROPERTY, value: { idempotencyKey } }]
      : undefined;
    const posted = await this.rest.send<{ id: string }>(
      `comment on ${issue}`,
      'POST',
      `/rest/api/3/issue/${enc(issue)}/comment`,
      { body: markdownToAdf(markdown), ...(properties ? { properties } : {}) },
    );
    return { id: posted.id };
  }

  async commentOnce(issue: string, markdown: string, key: string): Promise<{ id: string }> {
    const earlier = (await this.rawComments(issue, 100)).find((comment) =>
      comment.properties?.some(
        (p) => p.key === JIRA_IDEMPOTENCY_PROPERTY && p.value?.idempotencyKey === key,
      ),
    );
    return earlier ? { id: earlier.id } : this.comment(issue, markdown, key);
  }

  async createIssue(issue: NewTrackerIssue): Promise<TrackerIssue> {
    const created = await this.rest.send<{ key: string }>(
      `create an issue in ${issue.container}`,
      'POST',
      '/rest/api/3/issue',
      {
        fields: {
          project: { key: issue.container },
          summary: issue.title,
          issuetype: { name: issue.kind ?? 'Task' },
          ...(issue.description ? { description: markdownToAdf(issue.description) } : {}),
        },
      },
    );
    return this.getIssue(created.key);
  }

  async updateIssue(issue: string, changes: TrackerIssueChanges): Promise<TrackerIssue> {
    await this.rest.send(`update ${issue}`, 'PUT', `/rest/api/3/issue/${enc(issue)}`, {
      fields: {
        ...(changes.title === undefined ? {} : { summary: changes.title }),
        ...(changes.description === undefined
          ? {}
          : { description: markdownToAdf(changes.description) }),
      },
    });
    return this.getIssue(issue);
  }

  async getIssue(issue: string): Promise<TrackerIssue> {
    const json = await this.rest.send<JiraIssueJson>(
      `read ${issue}`,
      'GET',
      `/rest/api/3/issue/${enc(issue)}?fields=summary,description,status,assignee,creator`,
    );
    const { fields } = json;
    return {
      id: json.id,
      key: json.key,
      title: fields.summary ?? '',
      description: adfToMarkdown(fields.description),
      url: `${this.site.replace(/\/$/, '')}/browse/${json.key}`,
      ...(fields.status?.name ? { status: fields.status.name } : {}),
      ...(fields.assignee
        ? { assignee: fields.assignee.emailAddress ?? fields.assignee.displayName ?? '' }
        : {}),
      ...(fields.creator?.accountId ? { creator: fields.creator.accountId } : {}),
    };
  }

  /** The account id the service account acts as (the author of Caravel's own comments). */
  async ownAccountId(): Promise<string> {
    const action = 'read the service account';
    const json = await this.rest.send<{ accountId?: string }>(action, 'GET', '/rest/api/3/myself');
    if (!json.accountId) throw unexpectedAnswer('Jira', action);
    return json.accountId;
  }

  /** Reads one comment of `issue` by id: its real author and its current text. */
  async getComment(issue: string, id: string): Promise<JiraComment> {
    const action = `read comment ${id} of ${issue}`;
    const json = await this.rest.send<JiraCommentJson>(
      action,
      'GET',
      `/rest/api/3/issue/${enc(issue)}/comment/${enc(id)}`,
    );
    const author = json.author;
    if (json.id !== id || !author?.accountId) throw unexpectedAnswer('Jira', action);
    return {
      id: json.id,
      author: {
        accountId: author.accountId,
        ...(author.displayName ? { displayName: author.displayName } : {}),
      },
      markdown: adfToMarkdown(json.body),
    };
  }

  async getComments(issue: string, limit: number): Promise<ChannelMessage[]> {
    return (await this.rawComments(issue, limit)).map((comment) => ({
      id: comment.id,
      author:
        comment.author?.emailAddress ??
        comment.author?.displayName ??
        comment.author?.accountId ??
        'unknown',
      text: adfToMarkdown(comment.body),
      ...(comment.created ? { at: comment.created } : {}),
    }));
  }

  private async rawComments(issue: string, limit: number): Promise<JiraCommentJson[]> {
    const json = await this.rest.send<{ comments: JiraCommentJson[] }>(
      `read the comments of ${issue}`,
      'GET',
      `/rest/api/3/issue/${enc(issue)}/comment?maxResults=${limit}&orderBy=created&expand=properties`,
    );
    return json.comments;
  }

  async listContainers(): Promise<TrackerContainer[]> {
    const json = await this.rest.send<{ values: TrackerContainer[] }>(
      'list projects',
      'GET',
      '/rest/api/3/project/search?maxResults=100',
    );
    return json.values.map(({ id, key, name }) => ({ id, key, name }));
  }
}
