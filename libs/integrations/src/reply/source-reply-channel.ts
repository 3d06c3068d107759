import { createHash } from 'node:crypto';
import { AppError } from '@caravel/errors';
import type { ReplyChannel, ReplyReceipt } from '@caravel/tools';
import type { GitHubCodeHost } from '../github/github-code-host.js';
import type { GitHubRepository } from '../github/github-client.js';
import type { LinearTracker } from '../linear/linear-tracker.js';
import type { SlackThread, SlackThreadRef } from '../slack/slack-thread.js';

/** Where a thread came from: the trigger's `source`, `replyTo` pointer and repository. */
export interface ThreadSource {
  source: string;
  /** The trigger's `replyTo` (PR/issue number, Slack channel + ts, issue id/key, page id, ...). */
  replyTo: Record<string, string | number>;
  repository?: GitHubRepository;
}

/** Something that posts a reply at most once per key. */
export interface ReplyTarget {
  post(text: string, idempotencyKey: string): Promise<{ id: string }>;
}

/** The adapters a reply may go through; a source whose adapter is absent cannot be answered. */
export interface ReplyAdapters {
  github?: (repository: GitHubRepository) => GitHubCodeHost;
  slack?: (thread: SlackThreadRef) => SlackThread;
  linear?: LinearTracker;
  jira?: { commentOnce(issue: string, markdown: string, key: string): Promise<{ id: string }> };
  /** The Confluence site at a tenant's base URL (`replyTo.site`). */
  confluence?: (site: string) => ConfluenceReplier;
}

/** Answers under a Confluence comment (or on its page) once per key. */
export interface ConfluenceReplier {
  replyOnce(
    pageId: string,
    parentCommentId: string | undefined,
    markdown: string,
    key: string,
  ): Promise<{ id: string }>;
}

const str = (value: string | number | undefined): string | undefined =>
  value === undefined ? undefined : String(value);

function missing(what: string): AppError {
  return new AppError('PRECONDITION_FAILED', `cannot reply: ${what}`);
}

/** The reply target for a thread's source, or a coded error saying what is missing. */
export function replyTargetFor(thread: ThreadSource, adapters: ReplyAdapters): ReplyTarget {
  const to = thread.replyTo;
  switch (thread.source) {
    case 'github': {
      const number = Number(to['pullRequest'] ?? to['issue']);
      if (!adapters.github || !thread.repository || !Number.isInteger(number)) {
        throw missing(
          'a GitHub reply needs the GitHub adapter, the repository and a PR/issue number',
        );
      }
      const host = adapters.github(thread.repository);
      return {
        post: async (text, key) => ({ id: String((await host.comment(number, text, key)).id) }),
      };
    }
    case 'slack': {
      const channel = str(to['channel']);
      const threadTs = str(to['threadTs']);
      if (!adapters.slack || !channel || !threadTs) {
        throw missing('a Slack reply needs the Slack adapter, a channel and a thread ts');
      }
      const slack = adapters.slack({ channel, threadTs });
      return { post: async (text, key) => ({ id: (await slack.post(text, key)).ts }) };
    }
    case 'linear': {
      const issue = str(to['issueId']);
      const linear = adapters.linear;
      if (!linear || !issue)
        throw missing('a Linear reply needs the Linear adapter and an issue id');
      return { post: (text, key) => linear.commentOnce(issue, text, key) };
    }
    case 'jira': {
      const issue = str(to['issueKey']);
      const jira = adapters.jira;
      if (!jira || !issue) throw missing('a Jira reply needs the Jira adapter and an issue key');
      return { post: (text, key) => jira.commentOnce(issue, text, key) };
    }
    case 'confluence': {
      const site = str(to['site']);
      const page = str(to['pageId']);
      if (!adapters.confluence || !site || !page) {
        throw missing('a Confluence reply needs the Confluence adapter, a site and a page id');
      }
      // Under the comment that asked, so the answer lands in its conversation.
      const wiki = adapters.confluence(site);
      return { post: (text, key) => wiki.replyOnce(page, str(to['commentId']), text, key) };
    }
    default:
      throw missing(`source ${thread.source} has no channel to answer in`);
  }
}

/**
 * The runner's reply channel for one run: posts where the thread came from, each reply once.
 * The idempotency key is the run id plus a hash of the text, so a run resumed from its
 * checkpoint that repeats a reply finds the earlier post instead of posting again.
 */
export class SourceReplyChannel implements ReplyChannel {
  private readonly target: ReplyTarget;

  constructor(
    thread: ThreadSource,
    adapters: ReplyAdapters,
    private readonly runId: string,
  ) {
    this.target = replyTargetFor(thread, adapters);
  }

  async reply(text: string): Promise<ReplyReceipt> {
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
    const posted = await this.target.post(text, `reply:${this.runId}:${digest}`);
    return { messageId: posted.id };
  }
}
