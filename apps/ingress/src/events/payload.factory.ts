/**
 * Webhook bodies shaped like the senders' real ones (fields trimmed to those a reader would
 * meet first), for specs. Each takes overrides for the parts a test varies.
 */
const repository = {
  id: 1296269,
  name: 'widgets',
  full_name: 'acme/widgets',
  private: false,
  owner: { login: 'acme', id: 1, type: 'Organization' },
  default_branch: 'main',
};

export const githubPayload = {
  issueComment(body: string, overrides: { action?: string; login?: string; pr?: boolean } = {}) {
    return {
      action: overrides.action ?? 'created',
      issue: {
        id: 444500041,
        number: 42,
        title: 'Parser crashes on empty input',
        body: 'Steps to reproduce…',
        state: 'open',
        user: { login: 'octocat', id: 2, type: 'User' },
        updated_at: '2026-01-02T10:00:00Z',
        ...(overrides.pr
          ? { pull_request: { url: 'https://api.github.com/repos/acme/widgets/pulls/42' } }
          : {}),
      },
      comment: {
        id: 1000001,
        body,
        user: { login: overrides.login ?? 'octocat', id: 2, type: 'User' },
        created_at: '2026-01-02T10:00:00Z',
        author_association: 'MEMBER',
      },
      repository,
      sender: { login: overrides.login ?? 'octocat', id: 2, type: 'User' },
    };
  },
  reviewComment(body: string) {
    return {
      action: 'created',
      comment: {
        id: 2000002,
        body,
        path: 'src/parser.ts',
        line: 12,
        user: { login: 'hubot', type: 'User' },
        author_association: 'MEMBER',
      },
      pull_request: {
        id: 555,
        number: 7,
        draft: false,
        head: { sha: 'abc123', ref: 'fix' },
        base: { ref: 'main' },
      },
      repository,
      sender: { login: 'hubot', type: 'User' },
    };
  },
  review(body: string | null, action = 'submitted') {
    return {
      action,
      review: {
        id: 3000003,
        body,
        state: 'commented',
        user: { login: 'hubot', type: 'User' },
        author_association: 'MEMBER',
      },
      pull_request: { id: 555, number: 7, draft: false, head: { sha: 'abc123' } },
      repository,
      sender: { login: 'hubot', type: 'User' },
    };
  },
  issues(action: string, extra: Record<string, unknown>) {
    return {
      action,
      issue: {
        id: 444500041,
        number: 42,
        title: 'Add CSV export',
        body: 'We need CSV.',
        updated_at: '2026-01-02T11:00:00Z',
      },
      repository,
      sender: { login: 'octocat', type: 'User' },
      ...extra,
    };
  },
  pullRequest(action: string, overrides: { draft?: boolean; login?: string } = {}) {
    const user = { login: overrides.login ?? 'octocat', id: 2, type: 'User' };
    return {
      action,
      number: 7,
      ...(action === 'synchronize' ? { before: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e' } : {}),
      pull_request: {
        id: 555,
        number: 7,
        draft: overrides.draft ?? false,
        head: { sha: '34c5c7793cb3b279e22454cb6750c80560547b3a' },
        user,
        author_association: 'MEMBER',
      },
      repository,
      sender: user,
    };
  },
  checkRun(pullRequests: number[]) {
    return {
      action: 'completed',
      check_run: {
        id: 9,
        head_sha: 'ABC123',
        conclusion: 'failure',
        pull_requests: pullRequests.map((number) => ({ number })),
      },
      repository,
    };
  },
};

export function slackEvent(event: Record<string, unknown>, eventId = 'Ev0001') {
  return {
    token: 'ignored',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: eventId,
    event_time: 1700000000,
    event: {
      channel: 'C0123',
      user: 'U0USER',
      ts: '1700000000.000100',
      event_ts: '1700000000.000100',
      ...event,
    },
  };
}

export function linearComment(body: string, overrides: Record<string, unknown> = {}) {
  return {
    action: 'create',
    type: 'Comment',
    createdAt: '2026-01-02T10:00:00.000Z',
    url: 'https://linear.app/acme/issue/ENG-12#comment-1',
    webhookId: 'wh-1',
    webhookTimestamp: 1767348000000,
    organizationId: 'org-1',
    actor: { id: 'user-1', name: 'Ada', type: 'user' },
    data: {
      id: 'comment-1',
      body,
      issueId: '2c7e3b3e-5f3a-4a7f-9a61-0d5a8e0f6b11',
      userId: 'user-1',
      issue: {
        id: '2c7e3b3e-5f3a-4a7f-9a61-0d5a8e0f6b11',
        identifier: 'ENG-12',
        title: 'Fix login',
      },
    },
    ...overrides,
  };
}

export function linearIssueUpdate(assigneeId: string | null, previous: string | null) {
  return {
    action: 'update',
    type: 'Issue',
    createdAt: '2026-01-02T10:00:00.000Z',
    webhookId: 'wh-1',
    webhookTimestamp: 1767348000000,
    actor: { id: 'user-1', name: 'Ada', type: 'user' },
    data: {
      id: '2c7e3b3e-5f3a-4a7f-9a61-0d5a8e0f6b11',
      identifier: 'ENG-12',
      title: 'Fix login',
      description: 'It fails on Safari.',
      creatorId: 'user-1',
      assigneeId,
      updatedAt: '2026-01-02T10:00:00.000Z',
    },
    updatedFrom: { assigneeId: previous, updatedAt: '2026-01-01T10:00:00.000Z' },
  };
}
