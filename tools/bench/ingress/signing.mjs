// Signed deliveries as GitHub and Slack send them, each one new (its own delivery and event id).
import { createHmac, randomUUID } from 'node:crypto';

export const BENCH_SECRETS = { github: 'bench-github-secret', slack: 'bench-slack-secret' };

const hmac = (secret, data) => createHmac('sha256', secret).update(data).digest('hex');

/** An `issue_comment` mentioning the bot on a private repository, delivery `n`. */
export function githubDelivery(n) {
  const user = { login: 'octocat', id: 2, type: 'User' };
  const body = JSON.stringify({
    action: 'created',
    issue: {
      id: 444500000 + n,
      number: 1 + (n % 500),
      title: 'Parser crashes on empty input',
      state: 'open',
      user,
      updated_at: new Date().toISOString(),
    },
    comment: {
      id: 1_000_000 + n,
      body: `@caravel please fix the parser (${n})`,
      user,
      created_at: new Date().toISOString(),
      author_association: 'MEMBER',
    },
    repository: {
      id: 1296269,
      name: 'widgets',
      full_name: 'acme/widgets',
      private: true,
      owner: { login: 'acme', id: 1, type: 'Organization' },
      default_branch: 'main',
    },
    sender: user,
  });
  return {
    path: '/webhooks/github',
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${hmac(BENCH_SECRETS.github, body)}`,
    },
  };
}

/** An `app_mention` starting a Slack thread, delivery `n`, signed now (v0). */
export function slackDelivery(n) {
  const ts = `${1_700_000_000 + n}.000100`;
  const body = JSON.stringify({
    token: 'ignored',
    team_id: 'T0BENCH',
    api_app_id: 'A0BENCH',
    type: 'event_callback',
    event_id: `EvBench${n}${randomUUID().slice(0, 8)}`,
    event_time: Math.floor(Date.now() / 1000),
    event: {
      type: 'app_mention',
      channel: 'C0BENCH',
      user: 'U0PERSON',
      text: `<@UBENCHBOT> please look at the flaky test (${n})`,
      ts,
      event_ts: ts,
    },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    path: '/webhooks/slack',
    body,
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': `v0=${hmac(BENCH_SECRETS.slack, `v0:${timestamp}:${body}`)}`,
    },
  };
}
