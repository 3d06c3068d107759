import { LoopbackApi, textOf, type FakeResponse, type RecordedCall } from '../http/loopback-api.js';

/** An issue the fake Jira holds (description and comment bodies are ADF documents). */
export interface FakeJiraIssue {
  id: string;
  key: string;
  projectKey: string;
  summary: string;
  description: unknown;
  status: string;
  issueType: string;
  comments: FakeJiraComment[];
  /** Who created it (Jira's `creator`); none for an issue seeded without one. */
  creator?: { accountId: string; displayName: string };
}

/** A comment the fake Jira holds. */
export interface FakeJiraComment {
  id: string;
  body: unknown;
  created: string;
  /** Jira leaves `emailAddress` out when the account's profile hides it. */
  author: { accountId: string; displayName: string; emailAddress?: string };
  properties: { key: string; value: unknown }[];
}

const missing = (what: string): FakeResponse => ({
  status: 404,
  body: {
    errorMessages: [`${what} does not exist or you do not have permission to see it.`],
    errors: {},
  },
});

/**
 * A Jira Cloud REST v3 stand-in on 127.0.0.1: issues (create, read, update), comments (one by
 * id, a page of them with comment properties under `expand=properties`, posting) and project
 * search, behind Basic auth with a service account's email and API token. Errors use Jira's
 * `errorMessages` / `errors` shape.
 */
export class FakeJira extends LoopbackApi {
  readonly projects: { id: string; key: string; name: string }[] = [];
  readonly issues: FakeJiraIssue[] = [];
  private readonly accounts = new Map<string, string>();
  private seq = 10_000;

  constructor() {
    super();
    this.authorize((call) =>
      this.userOf(call) ? null : { status: 401, body: { errorMessages: ['Unauthorized'] } },
    );
    this.route('GET', '/rest/api/3/project/search', () => ({
      status: 200,
      body: { values: this.projects },
    }));
    this.route('POST', '/rest/api/3/issue', (call) => this.create(call));
    this.route('GET', '/rest/api/3/issue/:key', (_call, p) =>
      this.withIssue(p, (i) => this.issueJson(i)),
    );
    this.route('PUT', '/rest/api/3/issue/:key', (call, p) =>
      this.withIssue(p, (i) => this.update(i, call)),
    );
    this.route('GET', '/rest/api/3/issue/:key/comment', (call, p) =>
      this.withIssue(p, (i) => this.comments(i, call)),
    );
    this.route('POST', '/rest/api/3/issue/:key/comment', (call, p) =>
      this.withIssue(p, (i) => this.comment(i, call)),
    );
    this.route('GET', '/rest/api/3/issue/:key/comment/:id', (_call, p) =>
      this.withIssue(p, (i) => this.oneComment(i, p['id'] ?? '')),
    );
    this.route('GET', '/rest/api/3/myself', (call) => {
      const email = this.userOf(call) ?? '';
      return { status: 200, body: FakeJira.accountOf(email) };
    });
  }

  /** The account Jira knows a service account's `email` as (its comments' author, `/myself`). */
  static accountOf(email: string): {
    accountId: string;
    displayName: string;
    emailAddress: string;
  } {
    return { accountId: `acc-${email}`, displayName: email, emailAddress: email };
  }

  /** Accepts `email` + `apiToken` as a service account. */
  addAccount(email: string, apiToken: string): this {
    this.accounts.set(Buffer.from(`${email}:${apiToken}`).toString('base64'), email);
    return this;
  }

  addProject(key: string, name: string): this {
    this.projects.push({ id: String(this.nextId()), key, name });
    return this;
  }

  /** Seeds an issue in a project (added when new); returns it. */
  addIssue(issue: {
    projectKey: string;
    summary: string;
    description?: unknown;
    creator?: FakeJiraIssue['creator'];
  }): FakeJiraIssue {
    if (!this.projects.some((p) => p.key === issue.projectKey)) {
      this.addProject(issue.projectKey, issue.projectKey);
    }
    const number = this.issues.filter((i) => i.projectKey === issue.projectKey).length + 1;
    const created: FakeJiraIssue = {
      id: String(this.nextId()),
      key: `${issue.projectKey}-${number}`,
      projectKey: issue.projectKey,
      summary: issue.summary,
      description: issue.description ?? null,
      status: 'To Do',
      issueType: 'Task',
      comments: [],
      ...(issue.creator ? { creator: issue.creator } : {}),
    };
    this.issues.push(created);
    return created;
  }

  private nextId(): number {
    this.seq += 1;
    return this.seq;
  }

  private userOf(call: RecordedCall): string | undefined {
    const basic = /^Basic (\S+)$/.exec(textOf(call.headers.authorization))?.[1];
    return basic ? this.accounts.get(basic) : undefined;
  }

  private withIssue(
    p: Record<string, string>,
    answer: (issue: FakeJiraIssue) => FakeResponse,
  ): FakeResponse {
    const issue = this.issues.find((i) => i.key === p['key'] || i.id === p['key']);
    return issue ? answer(issue) : missing('Issue');
  }

  private create(call: RecordedCall): FakeResponse {
    const fields = (call.body?.['fields'] ?? {}) as Record<
      string,
      Record<string, unknown> | string | undefined
    >;
    const projectKey = textOf((fields['project'] as Record<string, unknown> | undefined)?.['key']);
    if (!this.projects.some((p) => p.key === projectKey)) {
      return {
        status: 400,
        body: { errorMessages: [], errors: { project: 'valid project is required' } },
      };
    }
    const issue = this.addIssue({
      projectKey,
      summary: textOf(fields['summary']),
      description: fields['description'] ?? null,
    });
    issue.issueType = textOf(
      (fields['issuetype'] as Record<string, unknown> | undefined)?.['name'],
    );
    return {
      status: 201,
      body: { id: issue.id, key: issue.key, self: `${this.origin}/rest/api/3/issue/${issue.id}` },
    };
  }

  private issueJson(issue: FakeJiraIssue): FakeResponse {
    const fields = {
      summary: issue.summary,
      description: issue.description,
      status: { name: issue.status },
      assignee: null,
      creator: issue.creator ?? null,
    };
    return { status: 200, body: { id: issue.id, key: issue.key, fields } };
  }

  private update(issue: FakeJiraIssue, call: RecordedCall): FakeResponse {
    const fields = (call.body?.['fields'] ?? {}) as Record<string, unknown>;
    if (typeof fields['summary'] === 'string') issue.summary = fields['summary'];
    if (fields['description'] !== undefined) issue.description = fields['description'];
    return { status: 204 };
  }

  private comments(issue: FakeJiraIssue, call: RecordedCall): FakeResponse {
    const expand = (call.query['expand'] ?? '').split(',').includes('properties');
    const max = Number(call.query['maxResults'] ?? 50);
    const comments = issue.comments
      .slice(0, max)
      .map(({ properties, ...comment }) => (expand ? { ...comment, properties } : comment));
    return {
      status: 200,
      body: { startAt: 0, maxResults: max, total: issue.comments.length, comments },
    };
  }

  /** Jira answers a comment only under its own issue: another issue's comment id is a 404. */
  private oneComment(issue: FakeJiraIssue, id: string): FakeResponse {
    const comment = issue.comments.find((c) => c.id === id);
    if (!comment) return missing('Comment');
    const { body, created, author } = comment;
    const self = `${this.origin}/rest/api/3/issue/${issue.id}/comment/${id}`;
    return { status: 200, body: { self, id, author, body, created, updated: created } };
  }

  private comment(issue: FakeJiraIssue, call: RecordedCall): FakeResponse {
    const email = this.userOf(call) ?? '';
    const properties = Array.isArray(call.body?.['properties'])
      ? (call.body['properties'] as { key: string; value: unknown }[])
      : [];
    const comment: FakeJiraComment = {
      id: String(this.nextId()),
      body: call.body?.['body'],
      created: new Date(Date.UTC(2030, 0, 1, 0, issue.comments.length)).toISOString(),
      author: FakeJira.accountOf(email),
      properties,
    };
    issue.comments.push(comment);
    return { status: 201, body: { id: comment.id, body: comment.body, author: comment.author } };
  }

  /**
   * Seeds a comment by someone else on the issue with `key` (an ADF `body`); returns it. The id
   * is the next free one unless given.
   */
  addComment(
    key: string,
    comment: { id?: string; body: unknown; author: FakeJiraComment['author'] },
  ): FakeJiraComment {
    const issue = this.issues.find((i) => i.key === key);
    if (!issue) throw new Error(`fake Jira: no issue ${key}`);
    const added: FakeJiraComment = {
      id: comment.id ?? String(this.nextId()),
      body: comment.body,
      created: new Date(Date.UTC(2029, 0, 1, 0, issue.comments.length)).toISOString(),
      author: comment.author,
      properties: [],
    };
    issue.comments.push(added);
    return added;
  }

  /** Seeds a comment by the account with `email`. */
  seedComment(key: string, body: unknown, email: string): void {
    this.addComment(key, {
      body,
      author: FakeJira.accountOf(email),
    });
  }
}
