import { LoopbackApi, textOf, type FakeResponse, type RecordedCall } from '../http/loopback-api.js';

/** An issue the fake Linear holds. */
export interface FakeLinearIssue {
  id: string;
  identifier: string;
  title: string;
  description: string;
  teamId: string;
  priority: number;
  state: string;
  assigneeEmail?: string;
  deleted?: boolean;
}

/** A comment the fake Linear holds. */
export interface FakeLinearComment {
  id: string;
  issueId: string;
  body: string;
  createdAt: string;
  user: { name: string; email: string };
}

/** A team the fake Linear holds. */
export interface FakeLinearTeam {
  id: string;
  key: string;
  name: string;
}

type Variables = Record<string, unknown>;
type Operation = (variables: Variables, call: RecordedCall) => FakeResponse;

/**
 * A Linear GraphQL stand-in on 127.0.0.1 (`apiUrl` = {@link apiUrl}). It answers by operation
 * name: the SDK's `createComment`, `createReaction`, `createIssue`, `updateIssue`, `deleteIssue` mutations and the
 * `Caravel*` read queries of the Caravel adapter, over in-memory teams, issues and comments.
 * Errors use Linear's shape (`errors[].extensions.type`): `authentication error` without a known
 * API key, `invalid input` for unknown entities; rate limits are scripted 429s.
 */
export class FakeLinear extends LoopbackApi {
  readonly teams: FakeLinearTeam[] = [];
  readonly issues: FakeLinearIssue[] = [];
  readonly comments: FakeLinearComment[] = [];
  /** Emoji reactions on comments (the SDK's `createReaction`), one per user, comment and emoji. */
  readonly reactions: { commentId: string; emoji: string; user: string }[] = [];
  private readonly keys = new Map<string, { name: string; email: string }>();
  private readonly operations: Record<string, Operation>;
  private seq = 0;

  constructor() {
    super();
    this.authorize((call) =>
      this.keys.has(textOf(call.headers.authorization))
        ? null
        : linearError(401, 'authentication error', 'Authentication required, not authenticated'),
    );
    this.operations = {
      createComment: (v, call) => this.createComment(v, call),
      createReaction: (v, call) => this.createReaction(v, call),
      createIssue: (v) => this.createIssue(v),
      updateIssue: (v) => this.updateIssue(v),
      deleteIssue: (v) => this.deleteIssue(v),
      CaravelIssue: (v) => this.withIssue(v, (issue) => data({ issue: this.issueJson(issue) })),
      CaravelIssueComments: (v) => this.issueComments(v),
      CaravelTeams: () => data({ teams: { nodes: this.teams } }),
      CaravelSearchIssues: (v) => this.search(v),
    };
    this.route('POST', '/graphql', (call) => this.graphql(call));
  }

  /** The `apiUrl` to give `LinearClient`. */
  get apiUrl(): string {
    return `${this.origin}/graphql`;
  }

  /** Accepts `apiKey`, acting as the given user. */
  addApiKey(apiKey: string, user = { name: 'Caravel', email: 'caravel@example.com' }): this {
    this.keys.set(apiKey, user);
    return this;
  }

  /** Seeds a team. */
  addTeam(team: FakeLinearTeam): this {
    this.teams.push(team);
    return this;
  }

  /** Seeds an issue; returns it. */
  addIssue(issue: Omit<FakeLinearIssue, 'id' | 'identifier'> & { id?: string }): FakeLinearIssue {
    const team = this.teams.find((t) => t.id === issue.teamId);
    const number = this.issues.filter((i) => i.teamId === issue.teamId).length + 1;
    const created = {
      ...issue,
      id: issue.id ?? this.nextId(),
      identifier: `${team?.key ?? 'ISS'}-${number}`,
    };
    this.issues.push(created);
    return created;
  }

  /** Seeds a comment on an issue. */
  addComment(issueId: string, body: string, user: { name: string; email: string }): this {
    const createdAt = new Date(Date.UTC(2030, 0, 1, 0, this.comments.length)).toISOString();
    this.comments.push({ id: this.nextId(), issueId, body, createdAt, user });
    return this;
  }

  private nextId(): string {
    this.seq += 1;
    return `00000000-0000-4000-8000-${String(this.seq).padStart(12, '0')}`;
  }

  private graphql(call: RecordedCall): FakeResponse {
    const query = textOf(call.body?.['query']);
    const name = /^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? '';
    const operation = this.operations[name];
    if (!operation)
      return linearError(400, 'graphql error', `fake Linear: unknown operation ${name}`);
    return operation((call.body?.['variables'] ?? {}) as Variables, call);
  }

  private withIssue(v: Variables, answer: (issue: FakeLinearIssue) => FakeResponse): FakeResponse {
    const id = textOf(v['id']);
    const issue = this.issues.find((i) => !i.deleted && (i.id === id || i.identifier === id));
    return issue ? answer(issue) : linearError(400, 'invalid input', 'Entity not found: Issue');
  }

  private issueJson(issue: FakeLinearIssue): Record<string, unknown> {
    const team = this.teams.find((t) => t.id === issue.teamId) ?? null;
    return {
      id: issue.id,
      identifier: issue.identifier,
      title: issue.title,
      description: issue.description,
      priority: issue.priority,
      url: `${this.origin}/issue/${issue.identifier}`,
      state: { name: issue.state },
      team,
      assignee: issue.assigneeEmail
        ? { name: issue.assigneeEmail, email: issue.assigneeEmail }
        : null,
    };
  }

  private createComment(v: Variables, call: RecordedCall): FakeResponse {
    const input = (v['input'] ?? {}) as Variables;
    return this.withIssue({ id: input['issueId'] }, (issue) => {
      const user = this.keys.get(String(call.headers.authorization)) ?? { name: '?', email: '?' };
      this.addComment(issue.id, textOf(input['body']), user);
      const comment = this.comments.at(-1);
      return data({ commentCreate: payload({ comment: { id: comment?.id } }) });
    });
  }

  private createReaction(v: Variables, call: RecordedCall): FakeResponse {
    const input = (v['input'] ?? {}) as Variables;
    const commentId = textOf(input['commentId']);
    if (!this.comments.some((c) => c.id === commentId)) {
      return linearError(400, 'invalid input', 'Entity not found: Comment');
    }
    const user = this.keys.get(String(call.headers.authorization))?.email ?? '?';
    const emoji = textOf(input['emoji']);
    const seen = this.reactions.some(
      (r) => r.commentId === commentId && r.emoji === emoji && r.user === user,
    );
    if (!seen) this.reactions.push({ commentId, emoji, user });
    return data({ reactionCreate: payload({ reaction: { id: this.nextId() } }) });
  }

  private createIssue(v: Variables): FakeResponse {
    const input = (v['input'] ?? {}) as Variables;
    if (!this.teams.some((t) => t.id === input['teamId'])) {
      return linearError(400, 'invalid input', 'Entity not found: Team');
    }
    const issue = this.addIssue({
      teamId: String(input['teamId']),
      title: textOf(input['title']),
      description: textOf(input['description']),
      priority: Number(input['priority'] ?? 0),
      state: 'Todo',
    });
    return data({ issueCreate: payload({ issue: { id: issue.id } }) });
  }

  private updateIssue(v: Variables): FakeResponse {
    return this.withIssue(v, (issue) => {
      const input = (v['input'] ?? {}) as Variables;
      if (typeof input['title'] === 'string') issue.title = input['title'];
      if (typeof input['description'] === 'string') issue.description = input['description'];
      if (typeof input['priority'] === 'number') issue.priority = input['priority'];
      return data({ issueUpdate: payload({ issue: { id: issue.id } }) });
    });
  }

  private deleteIssue(v: Variables): FakeResponse {
    return this.withIssue(v, (issue) => {
      issue.deleted = true;
      return data({ issueDelete: payload({ entity: { id: issue.id } }) });
    });
  }

  private issueComments(v: Variables): FakeResponse {
    return this.withIssue(v, (issue) => {
      const first = Number(v['first'] ?? 50);
      const nodes = this.comments.filter((c) => c.issueId === issue.id).slice(0, first);
      return data({ issue: { comments: { nodes } } });
    });
  }

  private search(v: Variables): FakeResponse {
    const term = textOf(v['term']).toLowerCase();
    const nodes = this.issues
      .filter((i) => !i.deleted && `${i.title}\n${i.description}`.toLowerCase().includes(term))
      .slice(0, Number(v['first'] ?? 10))
      .map((i) => this.issueJson(i));
    return data({ searchIssues: { nodes } });
  }
}

function data(body: Record<string, unknown>): FakeResponse {
  return { status: 200, body: { data: body } };
}

function payload(fields: Record<string, unknown>): Record<string, unknown> {
  return { __typename: 'Payload', success: true, lastSyncId: 1, ...fields };
}

/** A Linear-shaped GraphQL error answer (`errors[].extensions.type`). */
export function linearError(status: number, type: string, message: string): FakeResponse {
  return {
    status,
    body: { errors: [{ message, extensions: { type, userPresentableMessage: message } }] },
  };
}
