import { githubThreadId } from '@caravel/contracts';
import { RunRepository } from '@caravel/db';
import { FakeGitHub, githubAppEnv, githubAppKeys } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { postGithubWebhook } from './harness/github-webhook.js';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';

// On a public repository anyone can comment, so only the owner's members may address Caravel.
// The ingress holds no GitHub App: dispatch asks GitHub whether the commenter is a member, over
// each pair's bus, and the ingress answers the webhook with what it was told.
const SECRET = 'public-gate-secret';
const APP_ID = '5151';

/** A mention on acme/widgets#`issue` (public, organization-owned) by `login`, not vouched for. */
function mentionBy(login: string, issue: number, commentId: number) {
  return {
    action: 'created',
    issue: { id: 8_000_000 + issue, number: issue, title: 'Gate', body: 'Is it shut?' },
    comment: {
      id: commentId,
      body: '@caravel summarise this issue',
      user: { login, type: 'User' },
      author_association: 'CONTRIBUTOR',
    },
    repository: { name: 'widgets', private: false, owner: { login: 'acme', type: 'Organization' } },
    sender: { login, type: 'User' },
  };
}

await describeEachPair('the public-repository gate, asked of dispatch', (kind) => {
  const { privateKey, publicKey } = githubAppKeys();
  const github = new FakeGitHub({ app: { id: APP_ID, publicKey } })
    .addRepository('acme/widgets')
    .addOrgMember('acme', 'alice');
  let pair: PlatformPair;

  beforeAll(async () => {
    const origin = await github.start();
    pair = await startPair(kind, {
      GITHUB_WEBHOOK_SECRET: SECRET,
      ALLOWED_GITHUB_ORGS: 'acme',
      ...githubAppEnv(APP_ID, privateKey, origin),
    });
  }, 120_000);

  afterAll(async () => {
    await pair?.close();
    await github.close();
  });

  /** `login` mentions Caravel on issue `issue`; the ingress's answer. */
  async function mention(login: string, issue: number): Promise<unknown> {
    const payload = mentionBy(login, issue, 91_000 + issue);
    return (await postGithubWebhook(pair.host.url, SECRET, 'issue_comment', payload)).json();
  }

  const asked = (login: string) =>
    github.calls.filter((call) => call.path === `/orgs/acme/members/${login}`).length;

  it('refuses a commenter GitHub says is not a member, and starts nothing', async () => {
    expect(await mention('mallory', 1)).toEqual({
      accepted: false,
      reason: 'on public repository acme/widgets, @mallory is not a member of acme',
    });
    expect(asked('mallory')).toBe(1);
    const thread = githubThreadId({ owner: 'acme', repo: 'widgets', number: 1 });
    expect(await new RunRepository(pair.database.db).listByThread(thread)).toEqual([]);
  });

  it('takes the request of a member GitHub vouches for', async () => {
    expect(await mention('alice', 2)).toMatchObject({
      accepted: true,
      threadId: githubThreadId({ owner: 'acme', repo: 'widgets', number: 2 }),
    });
    expect(asked('alice')).toBe(1);
  });
});
