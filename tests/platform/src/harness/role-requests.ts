import type { FakeGithubOAuth } from '@caravel/testing';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// What the service-roles scenario sends the platform as its outside world would: a dashboard
// sign-in, a CI report, a Slack event, a labelled review set on disk.

/** Signs hubot (an admin) in through the fake OAuth as a browser follows the redirects. */
export async function signIn(dashboard: string, oauth: FakeGithubOAuth): Promise<string> {
  oauth.account = { login: 'hubot', id: 7 };
  const start = await fetch(`${dashboard}/auth/github`, { redirect: 'manual' });
  const nonce = start.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const authorize = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
  const back = await fetch(authorize.headers.get('location') ?? '', {
    redirect: 'manual',
    headers: { cookie: nonce },
  });
  const session = back.headers.getSetCookie().find((c) => c.startsWith('caravel_session='));
  if (!session) throw new Error(`no session for hubot: ${back.headers.get('location')}`);
  return session.split(';')[0] ?? '';
}

/**
 * Posts an event of workspace `team` to the ingress, signed with `secret` as Slack signs it;
 * answers the ingress's body.
 */
export async function postSlackEvent(
  ingress: string,
  { team, secret }: { team: string; secret: string },
  event: Record<string, unknown>,
): Promise<unknown> {
  const body = JSON.stringify({
    type: 'event_callback',
    team_id: team,
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10)}`,
    event_time: Math.floor(Date.now() / 1000),
    event: { ...event, event_ts: event['ts'], channel_type: 'channel' },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  const answer = await fetch(`${ingress}/webhooks/slack`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': `v0=${signature}`,
    },
    body,
  });
  return answer.json();
}

/** A labelled review set (`roles-set`) whose one case names a head the repository lacks. */
export async function reviewSet(dir: string, repository: string): Promise<string> {
  const folder = join(dir, 'roles-set');
  await mkdir(folder, { recursive: true });
  const set = {
    cases: [{ id: 'missing', repository, base: 'main', head: 'no-such-head', defects: [] }],
  };
  await writeFile(join(folder, 'review-set.json'), JSON.stringify(set));
  return folder;
}

/**
 * Posts a Linear `Comment` webhook (a person's comment on `issue`) to the ingress, signed with
 * `secret` as Linear signs it; answers the ingress's body.
 */
export async function postLinearComment(
  ingress: string,
  secret: string,
  comment: {
    id: string;
    issue: { id: string; identifier: string; title: string };
    body: string;
    user: { id: string; name: string };
  },
): Promise<unknown> {
  const now = new Date().toISOString();
  const delivery = randomUUID();
  const body = JSON.stringify({
    action: 'create',
    type: 'Comment',
    createdAt: now,
    url: `https://linear.app/acme/issue/${comment.issue.identifier}#comment-${comment.id}`,
    webhookId: delivery,
    webhookTimestamp: Date.now(),
    organizationId: randomUUID(),
    actor: { ...comment.user, type: 'user' },
    data: {
      id: comment.id,
      body: comment.body,
      issueId: comment.issue.id,
      userId: comment.user.id,
      createdAt: now,
      issue: comment.issue,
    },
  });
  const answer = await fetch(`${ingress}/webhooks/linear`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'linear-signature': createHmac('sha256', secret).update(body).digest('hex'),
      'linear-delivery': delivery,
      'linear-event': 'Comment',
    },
    body,
  });
  return answer.json();
}
