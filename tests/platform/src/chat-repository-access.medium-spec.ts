import { slackThreadId } from '@caravel/contracts';
import {
  IdentityRepository,
  RunRepository,
  ThreadRepository,
  TriggerRefusalRepository,
} from '@caravel/db';
import { FakeGitHub, FakeSlack, githubAppEnv, githubAppKeys } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import { until } from './harness/scenario-run.js';
import { triggersHandled } from './harness/triggers-handled.js';

// A person in Slack names a repository with `repo:owner/name`; Caravel works on it with the
// GitHub App's access. So it does only when the trigger's author can see the repository on
// GitHub through their linked account: the one who named it, and anyone who follows up in the
// thread (a follow-up names nothing, and would otherwise run on the private repository for
// anyone in the channel). A refusal is answered in the thread and starts nothing. The ingress
// asks nothing: dispatch, which holds the App, decides before it creates anything.
const SLACK_SECRET = 'chat-access-slack';
const BOT_TOKEN = 'xoxb-chat-access';
const CHANNEL = 'C0ACCESS';
const TEAM = 'T0ACCESS';
const PRIVATE = 'acme/payroll-private';
const APP_ID = '4242';

const sign = (data: string) => createHmac('sha256', SLACK_SECRET).update(data).digest('hex');

await describeEachPair(
  'a repository a person chose in Slack is used only by people who can see it',
  (kind) => {
    const keys = githubAppKeys();
    const github = new FakeGitHub({ app: { id: APP_ID, publicKey: keys.publicKey } });
    const slack = new FakeSlack().addToken(BOT_TOKEN).addChannel(CHANNEL);
    let pair: PlatformPair;
    let runs: RunRepository;

    beforeAll(async () => {
      const origin = await github.start();
      github.addRepository(PRIVATE);
      github.collaborators.add(PRIVATE, 'ada');
      await slack.listen();
      pair = await startPair(kind, {
        SLACK_SIGNING_SECRET: SLACK_SECRET,
        SLACK_BOT_USER_ID: 'UBOT',
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_API_URL: slack.apiUrl,
        ...githubAppEnv(APP_ID, keys.privateKey, origin),
      });
      runs = new RunRepository(pair.database.db);
      const identities = new IdentityRepository(pair.database.db);
      await identities.insert(randomUUID(), { slackUserId: 'U0ADA', githubLogin: 'ada' });
      await identities.insert(randomUUID(), { slackUserId: 'U0BOB', githubLogin: 'bob' });
    }, 120_000);

    afterAll(async () => {
      await pair?.close();
      await slack.close();
      await github.close();
    });

    /** `user` mentions Caravel with `text`, in a new thread or in `threadTs`'s. */
    async function mention(user: string, text: string, threadTs?: string) {
      const ts = slack.seed(CHANNEL, `<@UBOT> ${text}`, user, threadTs);
      const body = JSON.stringify({
        type: 'event_callback',
        team_id: TEAM,
        event_id: `Ev${ts.replace('.', '')}`,
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: 'app_mention',
          channel: CHANNEL,
          user,
          text: `<@UBOT> ${text}`,
          ts,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        },
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const response = await fetch(`${pair.host.url}/webhooks/slack`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-slack-request-timestamp': timestamp,
          'x-slack-signature': `v0=${sign(`v0:${timestamp}:${body}`)}`,
        },
        body,
      });
      const answer = (await response.json()) as { accepted?: boolean; reason?: string };
      const root = threadTs ?? ts;
      return {
        answer,
        threadId: slackThreadId({ team: TEAM, channel: CHANNEL, threadTs: root }),
        ts: root,
      };
    }

    /** Caravel's own messages in the Slack thread `ts`. */
    const replies = (ts: string) =>
      slack.messages.filter((m) => m.thread_ts === ts && m.ts !== ts).map((m) => m.text);

    /** Caravel's first message in thread `ts` matching `pattern`, once it is there. */
    const replyIn = (ts: string, pattern: RegExp) =>
      until(
        async () => Promise.resolve(replies(ts).find((text) => pattern.test(text))),
        `a reply matching ${pattern}`,
      );

    const runsOf = async (threadId: string) => (await runs.listByThread(threadId)).length;

    it('refuses an unlinked person naming a private repository, in the thread, creating nothing', async () => {
      const { answer, threadId, ts } = await mention(
        'U0STRANGER',
        `summarise auth repo:${PRIVATE}`,
      );

      expect(answer.accepted).toBe(true);
      await replyIn(ts, /acme\/payroll-private[\s\S]*not linked to a GitHub account/);
      await triggersHandled(pair);
      expect(await runsOf(threadId)).toBe(0);
      expect(await new ThreadRepository(pair.database.db).get(threadId)).toBeNull();
    });

    it('refuses a linked person whose GitHub account cannot see the repository', async () => {
      const { threadId, ts } = await mention('U0BOB', `summarise auth repo:${PRIVATE}`);

      await replyIn(ts, /@bob has no access to acme\/payroll-private/);
      await triggersHandled(pair);
      expect(await runsOf(threadId)).toBe(0);
    });

    it('refuses a repository the App is not installed on, saying so', async () => {
      const { threadId, ts } = await mention('U0ADA', 'summarise repo:acme/elsewhere');

      await replyIn(ts, /GitHub App cannot see it/);
      await triggersHandled(pair);
      expect(await runsOf(threadId)).toBe(0);
    });

    it("refuses a follow-up by someone who cannot see the thread's repository; its chooser's follow-up works", async () => {
      const first = await mention('U0ADA', `summarise auth repo:${PRIVATE}`);
      await until(
        async () => ((await runsOf(first.threadId)) === 1 ? true : undefined),
        "ada's run",
      );
      expect(replies(first.ts).some((text) => /no access|not linked/.test(text))).toBe(false);

      // Bob names no repository: the thread's, which Ada chose, is checked against him all the same.
      const bob = await mention('U0BOB', 'now print every salary in the thread', first.ts);
      expect(bob.threadId).toBe(first.threadId);
      await replyIn(first.ts, /@bob has no access to acme\/payroll-private/);
      await triggersHandled(pair);
      expect(await runsOf(first.threadId)).toBe(1);
      expect(
        await new TriggerRefusalRepository(pair.database.db).listByThread(first.threadId),
      ).toEqual([expect.objectContaining({ author: 'slack:U0BOB', rule: 'repository_access' })]);

      await mention('U0ADA', 'and the tests of it, please', first.ts);
      await until(
        // Her follow-up's run (it may join the first run, which then starts one more).
        async () => ((await runsOf(first.threadId)) >= 2 ? true : undefined),
        "ada's follow-up",
      );
      expect(replies(first.ts).filter((text) => /no access/.test(text))).toHaveLength(1);
    });
  },
);
