import { slackThreadId } from '@caravel/contracts';
import type { FakeConfluenceComment, FakeJiraIssue, FakeLinearIssue } from '@caravel/testing';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  accepted,
  adfParagraph,
  ChannelsWorld,
  LINEAR_PERSON,
  REPOS,
  runsOf,
  runsWhenSettled,
  SERVICE_ACCOUNT,
  SLACK,
  type Source,
} from './support/channels-world.js';
import { conversationOf, fixFile, tagOf } from './support/fix-agent.js';
import { platformShapes, withLogs, type Platform } from './support/platform.js';
import { eventually } from './support/walking-skeleton.js';

/**
 * A Slack mention, a Linear comment, a Jira Automation call and a Confluence comment, each signed
 * as its sender signs it, each ending in an edit in a bwrap sandbox, a branch pushed through the
 * proxy, a draft PR on the fake GitHub and a reply in its own channel that links the PR. One
 * platform per shape serves all four.
 */

/** The Slack follow-up sent while the run works. */
const FOLLOW_UP = 'keep the README exactly as it is';
/**
 * Each case waits for a sandbox, several model calls, a push and replies; generous, as the
 * machine may be shared.
 */
const CASE_TIMEOUT_MS = 420_000;
const PR_TIMEOUT_MS = 240_000;

for (const { mode, start, suite } of await platformShapes()) {
  suite(
    `Slack, Linear, Jira and Confluence requests become draft PRs and replies (${mode})`,
    () => {
      let dir: string;
      let world: ChannelsWorld;
      let platform: Platform;
      const threads = {} as Record<Source, string>;
      const delivered = new Map<Source, Promise<void>>();
      let slackRoot: string;
      let linearIssue: FakeLinearIssue;
      let jiraIssue: FakeJiraIssue;
      let confluenceAsk: FakeConfluenceComment;

      /** The requests as each sender makes them (each once, however often asked for). */
      const deliveries: Record<Source, () => Promise<void>> = {
        // A mention in the channel; the agent is held after its edit for the follow-up.
        slack: async () => {
          world.agent.holdAfterEdit('slack', FOLLOW_UP);
          const text = `<@${SLACK.bot}> please add FIX.md [e2e:slack]`;
          slackRoot = world.slack.seed(SLACK.channel, text, 'UANN');
          threads.slack = accepted(
            await world.slackSender.deliver(platform.ingressUrl, {
              type: 'app_mention',
              user: 'UANN',
              text,
              ts: slackRoot,
              channel: SLACK.channel,
            }),
          );
        },
        // A comment on an issue, naming the repository.
        linear: async () => {
          linearIssue = world.linear.addIssue({
            teamId: 'team-eng',
            title: 'Add FIX.md',
            description: '',
            priority: 0,
            state: 'Todo',
          });
          const { id, identifier } = linearIssue;
          await world.linkLinearPerson(platform.apiUrl);
          threads.linear = accepted(
            await world.linearSender.deliverComment(platform.ingressUrl, {
              issue: { id, identifier, title: 'Add FIX.md' },
              body: `@caravel please add FIX.md repo:${REPOS.linear} [e2e:linear]`,
              user: { id: LINEAR_PERSON.linearUserId, name: 'Ada' },
            }),
          );
        },
        // The Automation rule's call for a comment, the repository in the rule's body. The
        // body only points at the comment: ingress reads its author and text back from Jira.
        jira: async () => {
          jiraIssue = world.jira.addIssue({ projectKey: 'OPS', summary: 'Add FIX.md' });
          const comment = world.jira.addComment(jiraIssue.key, {
            body: adfParagraph('please add FIX.md [e2e:jira]'),
            author: { accountId: 'jira-acc-ana', displayName: 'Ana' },
          });
          threads.jira = accepted(
            await world.jiraSender.deliver(platform.ingressUrl, {
              deliveryId: `${jiraIssue.key}-${Date.now()}`,
              site: world.jiraSite,
              issue: { id: jiraIssue.id, key: jiraIssue.key },
              comment: { id: comment.id },
              author: { accountId: 'jira-acc-ana', displayName: 'Ana' },
              repository: REPOS.jira,
            }),
          );
        },
        // The Connect app installed on the site, then a comment mentioning its account.
        confluence: async () => {
          const installed = await world.connect.install(
            platform.ingressUrl,
            world.confluence.wikiUrl,
          );
          expect(installed.status).toBe(200);
          const page = world.confluence.addPage({
            spaceKey: 'DOCS',
            title: 'Release notes',
            storage: '<p>Notes</p>',
          });
          confluenceAsk = world.confluence.addComment({
            pageId: page.id,
            storage: `<p><ac:link><ri:user ri:account-id="${world.confluenceBot}" /></ac:link> please add FIX.md [e2e:confluence]</p>`,
            author: { accountId: 'acc-bo', displayName: 'Bo' },
          });
          threads.confluence = accepted(
            await world.connect.commentCreated(platform.ingressUrl, confluenceAsk.id),
          );
        },
      };

      const deliver = (source: Source): Promise<void> => {
        const once = delivered.get(source) ?? deliveries[source]();
        delivered.set(source, once);
        return once;
      };

      beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'caravel-e2e-channels-'));
        await chmod(dir, 0o755);
        world = new ChannelsWorld(dir);
        platform = await start(dir, await world.start());
        // The four at once, on both shapes: four runs at a time share the embedded platform's
        // PGlite too (its checkpointers' queries each keep the one session to their Sync).
        await Promise.all(Object.keys(deliveries).map((s) => deliver(s as Source)));
      });

      afterAll(async () => {
        await world?.closeProvider();
        await platform?.close();
        await world?.close();
        await rm(dir, { recursive: true, force: true });
      });

      /** The case's draft PR, checked, and its web address. */
      async function draftPrOf(source: Source): Promise<string> {
        const pull = await world.github.draftPullOf(
          REPOS[source],
          threads[source],
          fixFile(source),
          PR_TIMEOUT_MS,
        );
        expect(pull.title).toBe(`Add FIX.md (${source})`);
        return world.github.pullUrl(REPOS[source], pull.number);
      }

      /** The case ran to a submitted end, after `interrupted` interrupted runs. */
      async function expectSubmitted(source: Source, interrupted = 0): Promise<void> {
        const runs = await runsWhenSettled(platform.apiUrl, threads[source]);
        const ended = runs.filter((r) => r.status !== 'merged');
        const summary: unknown = expect.any(String);
        const expected: unknown[][] = [
          ...Array.from({ length: interrupted }, () => [
            'interrupted',
            'exit_interrupted',
            summary,
          ]),
          ['completed', 'submitted', summary],
        ];
        expect(ended.map((r) => [r.status, r.exitStatus, r.summary ?? ''])).toEqual(expected);
      }

      it(
        'a Slack mention: a reply in the thread, "is working…" set then cleared, and a follow-up seen once',
        () =>
          withLogs(platform, async () => {
            await deliver('slack');
            expect(threads.slack).toBe(
              slackThreadId({ team: SLACK.team, channel: SLACK.channel, threadTs: slackRoot }),
            );
            // While the run works, a second message in the thread (no mention needed there).
            await eventually(async () => {
              if (world.agent.isHeld('slack')) return true;
              const failed = (await runsOf(platform.apiUrl, threads.slack)).find(
                (r) => r.status === 'failed',
              );
              if (failed) throw new Error(`the run failed: ${failed.summary ?? ''}`);
              return undefined;
            }, 120_000);
            const asked = world.fake.requests.length;
            const followUp = world.slack.seed(SLACK.channel, FOLLOW_UP, 'UANN', slackRoot);
            accepted(
              await world.slackSender.deliver(platform.ingressUrl, {
                type: 'message',
                user: 'UANN',
                text: FOLLOW_UP,
                ts: followUp,
                thread_ts: slackRoot,
                channel: SLACK.channel,
              }),
            );

            const url = await draftPrOf('slack');
            const reply = await eventually(() =>
              Promise.resolve(
                world.slack.messages.find((m) => m.thread_ts === slackRoot && m.text.includes(url)),
              ),
            );
            expect(reply).toMatchObject({ channel: SLACK.channel, user: SLACK.bot });
            await expectSubmitted('slack', 1);

            // The follow-up reached the agent exactly once in every later model call.
            const later = world.fake.requests.slice(asked).filter((r) => tagOf(r) === 'slack');
            expect(later.length).toBeGreaterThanOrEqual(3);
            for (const request of later) {
              expect(conversationOf(request).split(FOLLOW_UP)).toHaveLength(2);
            }

            // "is working…" under the thread while the agent works, cleared at the end.
            const statuses = world.slack.statuses.filter((s) => s.thread_ts === slackRoot);
            expect(statuses[0]?.status).toBe('is working…');
            expect(statuses.at(-1)).toEqual({
              channel_id: SLACK.channel,
              thread_ts: slackRoot,
              status: '',
            });
            const order = world.slack.calls.map((c) => {
              if (c.path.endsWith('/assistant.threads.setStatus'))
                return `status:${String(c.body?.['status'])}`;
              const posted = c.path.endsWith('/chat.postMessage');
              return posted && String(c.body?.['text']).includes(url) ? 'reply' : 'other';
            });
            const replyAt = order.indexOf('reply');
            expect(order.slice(0, replyAt)).toContain('status:is working…');
            expect(order.slice(replyAt)).toContain('status:');
          }),
        CASE_TIMEOUT_MS,
      );

      /**
       * The tracker and wiki cases: the reply that links the PR (once there), and how it carries
       * its idempotency key.
       */
      const trackerCases: {
        source: Source;
        name: string;
        reply: (url: string) => { idempotency: unknown } | undefined;
        idempotency: unknown;
      }[] = [
        {
          source: 'linear',
          name: 'a Linear comment naming its repository: a comment on the issue linking the PR',
          reply: (url) => {
            const found = world.linear.comments.find(
              (c) => c.issueId === linearIssue.id && c.body.includes(url),
            );
            return found && { idempotency: found.body };
          },
          idempotency: expect.stringContaining('<!-- caravel-idempotency-key:reply:'),
        },
        {
          source: 'jira',
          name: "a Jira Automation call: a comment on the issue linking the PR, in the rule's repository",
          reply: (url) => {
            const found = jiraIssue.comments.find((c) => JSON.stringify(c.body).includes(url));
            return found && { idempotency: found.properties };
          },
          idempotency: [
            { key: 'caravel.idempotency', value: { idempotencyKey: expect.any(String) } },
          ],
        },
        {
          source: 'confluence',
          name: "a Confluence comment: a reply under it, as the service account, linking the PR, in the team's default repository",
          reply: (url) => {
            const found = world.confluence
              .repliesTo(confluenceAsk.id)
              .find((c) => c.storage.includes(url));
            return found && { idempotency: [found.author.accountId, found.properties] };
          },
          idempotency: [
            `acc-${SERVICE_ACCOUNT.email}`,
            { 'caravel-idempotency': { idempotencyKey: expect.any(String) } },
          ],
        },
      ];

      for (const { source, name, reply, idempotency } of trackerCases) {
        it(
          name,
          () =>
            withLogs(platform, async () => {
              await deliver(source);
              const url = await draftPrOf(source);
              const posted = await eventually(() => Promise.resolve(reply(url)));
              expect(posted.idempotency).toEqual(idempotency);
              await expectSubmitted(source);
              world.github.expectOnlyMintedTokens();
            }),
          CASE_TIMEOUT_MS,
        );
      }
    },
  );
}
