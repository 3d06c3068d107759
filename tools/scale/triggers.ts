import {
  confluenceThreadId,
  jiraThreadId,
  linearThreadId,
  slackThreadId,
} from '@caravel/contracts';
import { randomUUID } from 'node:crypto';
import { threadBranch } from '../../e2e/support/github-world.js';
import { adfParagraph, ChannelsWorld, REPOS, SLACK } from '../../e2e/support/channels-world.js';
import type { Answer as SignedAnswer } from '../../e2e/support/signed-senders.js';
import { GITHUB_REPOSITORY, GithubMention, send } from '../chaos/senders.js';

/** Every source ingress takes a request from, in the order the load cycles through them. */
export const SOURCES = ['github', 'slack', 'linear', 'jira', 'confluence'] as const;
export type ScaleSource = (typeof SOURCES)[number];

/** The tag that tells the scripted fix agent a conversation is the scale run's. */
const ASK = 'please add FIX.md [e2e:scale]';
/** What the fix agent's reply starts with (e2e/support/fix-agent.ts). */
const REPLY = 'Opened a draft PR';
const WIDGETS = `${GITHUB_REPOSITORY.owner}/${GITHUB_REPOSITORY.name}`;

/** What one send got: an HTTP status (0: no answer) and whether ingress took the request. */
export interface Outcome {
  status: number;
  accepted: boolean;
  /** Ingress said it already had this delivery (an earlier send was taken). */
  duplicate: boolean;
  threadId: string | undefined;
}

/**
 * One request a sender wants done, as the real sender makes it: each send of it is the same
 * delivery (the same ids, re-signed where the sender signs each attempt), so a retry after a
 * killed ingress is a redelivery, never a second request.
 */
export interface ScaleTrigger {
  readonly source: ScaleSource;
  readonly repository: string;
  /** The thread it must start (known before the send, checked against the answer). */
  readonly threadId: string;
  send(ingressUrl: string): Promise<Outcome>;
  /** Replies the agent left where the request came from (each links the draft PR). */
  replies(): number;
}

const fromSigned = async (answer: () => Promise<SignedAnswer>): Promise<Outcome> => {
  try {
    const { status, body } = await answer();
    return {
      status,
      accepted: status === 200 && body.accepted === true,
      duplicate: body.reason === 'duplicate',
      threadId: typeof body.threadId === 'string' ? body.threadId : undefined,
    };
  } catch {
    return { status: 0, accepted: false, duplicate: false, threadId: undefined };
  }
};

/** Makes the requests of every source against a started {@link ChannelsWorld}. */
export class TriggerFactory {
  private count = 0;

  constructor(private readonly world: ChannelsWorld) {}

  /** The repositories the triggers work in (the GitHub App must be installed on each). */
  static readonly repositories = [WIDGETS];

  /** Installs the Confluence app through `ingressUrl` (once per platform: it is stored). */
  async install(ingressUrl: string): Promise<void> {
    const answer = await this.world.connect.install(ingressUrl, this.world.confluence.wikiUrl);
    if (answer.status !== 200) throw new Error(`Confluence install answered ${answer.status}`);
  }

  /** The next request, cycling through {@link SOURCES}. */
  next(): ScaleTrigger {
    const source = SOURCES[this.count % SOURCES.length]!;
    this.count += 1;
    return this[source]();
  }

  /** Draft PRs opened from a thread's branch. */
  pullsOf(trigger: ScaleTrigger): number {
    const pulls = this.world.github.github.state.pulls.get(trigger.repository.toLowerCase()) ?? [];
    return pulls.filter((p) => p.head === threadBranch(trigger.threadId)).length;
  }

  private github(): ScaleTrigger {
    const mention = new GithubMention(`@caravel ${ASK}`);
    const key = `${WIDGETS.toLowerCase()}#${mention.number}`;
    const state = this.world.github.github.state;
    return {
      source: 'github',
      repository: WIDGETS,
      threadId: mention.threadId,
      send: async (url) => {
        const answer = await send(url, mention.request());
        return {
          status: answer.status,
          accepted: answer.status === 200 && answer.accepted,
          duplicate: answer.reason === 'duplicate',
          threadId: mention.threadId,
        };
      },
      replies: () =>
        (state.issueComments.get(key) ?? []).filter((c) => c.body.includes(REPLY)).length,
    };
  }

  private slack(): ScaleTrigger {
    const { world } = this;
    const text = `<@${SLACK.bot}> ${ASK}`;
    const ts = world.slack.seed(SLACK.channel, text, 'UANN');
    const eventId = `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`;
    const event = { type: 'app_mention' as const, user: 'UANN', text, ts, channel: SLACK.channel };
    return {
      source: 'slack',
      repository: REPOS.slack,
      threadId: slackThreadId({ team: SLACK.team, channel: SLACK.channel, threadTs: ts }),
      send: (url) => fromSigned(() => world.slackSender.deliver(url, event, eventId)),
      replies: () =>
        world.slack.messages.filter(
          (m) => m.thread_ts === ts && m.ts !== ts && m.text.includes(REPLY),
        ).length,
    };
  }

  private linear(): ScaleTrigger {
    const { world } = this;
    const issue = world.linear.addIssue({
      teamId: 'team-eng',
      title: 'Add FIX.md',
      description: '',
      priority: 0,
      state: 'Todo',
    });
    const comment = {
      issue: { id: issue.id, identifier: issue.identifier, title: 'Add FIX.md' },
      body: `@caravel ${ASK} repo:${REPOS.linear}`,
      user: { id: 'lin-user-ada', name: 'Ada' },
    };
    const delivery = {
      commentId: `c-${issue.id}`,
      deliveryId: `d-${issue.id}`,
      at: new Date(),
    };
    return {
      source: 'linear',
      repository: REPOS.linear,
      threadId: linearThreadId(issue.id),
      send: (url) => fromSigned(() => world.linearSender.deliverComment(url, comment, delivery)),
      replies: () =>
        world.linear.comments.filter((c) => c.issueId === issue.id && c.body.includes(REPLY))
          .length,
    };
  }

  private jira(): ScaleTrigger {
    const { world } = this;
    const issue = world.jira.addIssue({ projectKey: 'OPS', summary: 'Add FIX.md' });
    const author = { accountId: 'jira-acc-ana', displayName: 'Ana' };
    const comment = world.jira.addComment(issue.key, { body: adfParagraph(ASK), author });
    const rule = {
      deliveryId: `${issue.key}-${comment.id}`,
      site: world.jiraSite,
      issue: { id: issue.id, key: issue.key },
      comment: { id: comment.id },
      author,
      repository: REPOS.jira,
    };
    return {
      source: 'jira',
      repository: REPOS.jira,
      threadId: jiraThreadId({ site: world.jiraSite, issueId: issue.id }),
      send: (url) => fromSigned(() => world.jiraSender.deliver(url, rule)),
      replies: () => issue.comments.filter((c) => JSON.stringify(c.body).includes(REPLY)).length,
    };
  }

  private confluence(): ScaleTrigger {
    const { world } = this;
    const page = world.confluence.addPage({
      spaceKey: 'DOCS',
      title: 'Notes',
      storage: '<p>x</p>',
    });
    const mention = `<ac:link><ri:user ri:account-id="${world.confluenceBot}" /></ac:link>`;
    const ask = world.confluence.addComment({
      pageId: page.id,
      storage: `<p>${mention} ${ASK}</p>`,
      author: { accountId: 'acc-bo', displayName: 'Bo' },
    });
    return {
      source: 'confluence',
      repository: REPOS.confluence,
      threadId: confluenceThreadId({
        site: world.confluence.wikiUrl,
        pageId: page.id,
        rootCommentId: ask.id,
      }),
      send: (url) => fromSigned(() => world.connect.commentCreated(url, ask.id)),
      replies: () =>
        world.confluence.repliesTo(ask.id).filter((c) => c.storage.includes(REPLY)).length,
    };
  }
}
