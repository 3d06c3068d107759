import { githubThreadId } from '@caravel/contracts';
import { RunRepository, ThreadRepository, TriggerRefusalRepository } from '@caravel/db';
import { FakeGitHub, githubAppEnv, githubAppKeys } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { postGithubWebhook } from './harness/github-webhook.js';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import { until } from './harness/scenario-run.js';
import { triggersHandled } from './harness/triggers-handled.js';

// On a public repository anyone can comment, so only the owner's members may address Caravel.
// The ingress holds no GitHub App and asks nothing: it publishes the trigger with the
// commenter's facts from the signed payload, and dispatch, which holds the App, decides before it
// creates anything (a GitHub or dispatch outage is then a redelivery, not a lost webhook). GitHub's
// answer is kept (PUBLIC_REPO_GATE_CACHE_SECONDS), so a stranger commenting again costs no call.
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

await describeEachPair('the public-repository gate, decided by dispatch', (kind) => {
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

  /** `login` mentions Caravel on issue `issue` (comment `comment`); the ingress's answer. */
  async function mention(login: string, issue: number, comment = 91_000 + issue): Promise<unknown> {
    const payload = mentionBy(login, issue, comment);
    return (await postGithubWebhook(pair.host.url, SECRET, 'issue_comment', payload)).json();
  }

  const asked = (login: string) =>
    github.calls.filter((call) => call.path === `/orgs/acme/members/${login}`).length;
  const issueThread = (issue: number) =>
    githubThreadId({ owner: 'acme', repo: 'widgets', number: issue });

  it('takes the webhook of a commenter GitHub says is not a member, then starts and records nothing', async () => {
    expect(await mention('mallory', 1)).toEqual({ accepted: true, threadId: issueThread(1) });

    await triggersHandled(pair);
    expect(asked('mallory')).toBe(1);
    expect(await new RunRepository(pair.database.db).listByThread(issueThread(1))).toEqual([]);
    expect(await new ThreadRepository(pair.database.db).get(issueThread(1))).toBeNull();
    expect(
      await new TriggerRefusalRepository(pair.database.db).listByThread(issueThread(1)),
    ).toEqual([
      expect.objectContaining({
        author: 'github:mallory',
        rule: 'public_repo_gate',
        reason: 'on public repository acme/widgets, @mallory is not a member of acme',
      }),
    ]);
  });

  it("refuses the same stranger's next comment on GitHub's kept answer, without asking again", async () => {
    expect(await mention('mallory', 1, 92_001)).toEqual({
      accepted: true,
      threadId: issueThread(1),
    });

    await triggersHandled(pair);
    expect(asked('mallory')).toBe(1);
    expect(
      await new TriggerRefusalRepository(pair.database.db).listByThread(issueThread(1)),
    ).toHaveLength(2);
    expect(await new ThreadRepository(pair.database.db).get(issueThread(1))).toBeNull();
  });

  it('starts the request of a member GitHub vouches for', async () => {
    expect(await mention('alice', 2)).toMatchObject({ accepted: true, threadId: issueThread(2) });

    const runs = new RunRepository(pair.database.db);
    // Her run goes to its end (here: the fake serves no repository to clone, so it fails), not
    // left in flight when the platform stops.
    const ended = await until(async () => {
      const [run] = await runs.listByThread(issueThread(2));
      return run && !['waiting', 'queued', 'running'].includes(run.status) ? run : undefined;
    }, "alice's run, ended");
    expect(ended.status).toBe('failed');
    expect(asked('alice')).toBe(1);
  });
});
