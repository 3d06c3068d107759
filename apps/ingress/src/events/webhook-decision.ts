import type {
  Actor,
  CiCheck,
  RepositoryRef,
  SourceSubject,
  TriggerSource,
} from '@caravel/contracts';
import type { GithubRepositoryFacts } from './github-repository-policy.js';

/**
 * Who acted on which GitHub repository, for the public-repository gate: on a public repository
 * only members of the owning organization (or its bots) may address Caravel.
 */
export interface GithubActorCheck {
  repository: GithubRepositoryFacts;
  login: string;
  /** GitHub's account type: `User`, `Bot`, `Organization`. */
  userType?: string | undefined;
  /** `author_association` of the comment, review or PR, when the payload has one. */
  association?: string | undefined;
}

/** A delivery that asks Caravel for something: it is recorded and published as a trigger. */
export interface TriggerDecision {
  kind: 'trigger';
  source: TriggerSource;
  /** `<event>.<action>` as the sender names it, e.g. `issue_comment.created`. */
  event: string;
  deliveryId: string;
  /** Identifies the same request across delivery ids (a comment id, a Slack channel + ts). */
  semanticKey: string | null;
  threadId: string;
  author: Actor;
  text: string;
  repository?: RepositoryRef;
  replyTo: Record<string, string | number>;
  /** GitHub: the pull request or issue the request was made on. */
  subject?: SourceSubject;
  /** Only act when Caravel already has this thread (an untagged Slack thread reply). */
  requiresKnownThread?: boolean;
  /**
   * Where the request was made, for `REPOSITORY_ROUTES`: the Slack channel, Linear team key,
   * Jira project key or Confluence space key.
   */
  container?: string;
  /** Set for GitHub: the actor must pass the public-repository gate. */
  actorCheck?: GithubActorCheck;
  /** Slack: the message and its thread's root, for the Slack message map (`slack_messages`). */
  slackMessage?: SlackMessagePlace & { threadTs: string };
}

/** Where a Slack message is: its workspace, channel and `ts`. */
export interface SlackMessagePlace {
  team: string;
  channel: string;
  ts: string;
}

/**
 * A Slack message that changed place (`message_changed`: edited, or moved with a new channel or
 * `ts`) or was deleted (`message_deleted`): the Slack message map follows it.
 */
export type SlackMessageChange =
  | { kind: 'moved'; from: SlackMessagePlace; to: SlackMessagePlace }
  | { kind: 'deleted'; message: SlackMessagePlace };

/** A pull request that asks for Caravel's review without a mention (auto-review). */
export interface ReviewDecision {
  kind: 'review';
  source: 'github';
  event: string;
  deliveryId: string;
  semanticKey: string;
  /** The reviewer's thread of the pull request. */
  threadId: string;
  /** The pull request's own (coding) thread. */
  pullRequestThreadId: string;
  repository: RepositoryRef;
  pullRequest: { number: number; headSha: string; draft: boolean };
  author: Actor;
  reason: 'opened' | 'ready_for_review';
  actorCheck: GithubActorCheck;
}

/** New commits on a pull request: the thread learns its new head (when Caravel has the thread). */
export interface HeadMovedDecision {
  kind: 'head';
  source: 'github';
  event: string;
  deliveryId: string;
  semanticKey: string;
  threadId: string;
  repository: RepositoryRef;
  pullRequest: number;
  headSha: string;
  previousSha?: string | undefined;
}

/**
 * A check on a commit (check run, check suite, workflow run, commit status): published as
 * `ci.check_reported` for dispatch's CI babysitting, answered 202 like any recorded delivery.
 */
export interface CiDecision {
  kind: 'ci';
  source: 'github';
  event: string;
  ciEvent: 'check_run' | 'check_suite' | 'workflow_run' | 'status';
  deliveryId: string;
  semanticKey: null;
  threadId: string;
  repository: RepositoryRef;
  headSha: string;
  pullRequests: { number: number; url: string }[];
  check: CiCheck;
}

/** A delivery kept but not acted on (a CI delivery that names no check). */
export interface RecordDecision {
  kind: 'record';
  source: TriggerSource;
  event: string;
  deliveryId: string;
  semanticKey: string | null;
  threadId: string;
  /** Slack: the message map follows this change (only for a message Caravel has). */
  slackChange?: SlackMessageChange;
}

/**
 * A person asks to stop a thread's work (Slack: ❌ on a message of the thread). The thread is the
 * one the message started or joined (looked up by its `message:<channel>:<ts>` key), else the one
 * it is the root of; only a thread Caravel has, and only from a trusted author, is stopped.
 */
export interface StopDecision {
  kind: 'stop';
  source: 'slack';
  event: string;
  deliveryId: string;
  semanticKey: string;
  /** The thread the message is the root of; the intake prefers the one it started or joined. */
  threadId: string;
  /** The semantic key of the trigger the message was, when it was one. */
  messageKey: string;
  /** The Slack message reacted to: the message map knows its thread when it moved. */
  slackMessage?: { team: string; channel: string; ts: string };
  author: Actor;
}

/** A verified delivery that is not for us. */
export interface IgnoreDecision {
  kind: 'ignore';
  reason: string;
}

/** What a mapper makes of one verified delivery. */
export type WebhookDecision =
  | TriggerDecision
  | ReviewDecision
  | HeadMovedDecision
  | CiDecision
  | RecordDecision
  | StopDecision
  | IgnoreDecision;

export function ignore(reason: string): IgnoreDecision {
  return { kind: 'ignore', reason };
}

/**
 * True when `text` mentions `@handle` as a whole token: `@caravel` and `@Caravel,` match,
 * `@caravelx`, `@caravel-dev` and `me@caravel.dev` do not.
 */
export function mentions(text: string | null | undefined, handle: string): boolean {
  if (!text) return false;
  return mentionOf(handle).test(text);
}

/** The pattern of each handle asked for: one or two a process (the bot's handles). */
const mentionPatterns = new Map<string, RegExp>();

function mentionOf(handle: string): RegExp {
  let pattern = mentionPatterns.get(handle);
  if (!pattern) {
    const escaped = handle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // No `g` flag: `test` keeps no position between texts.
    pattern = new RegExp(`(^|[^\\w@./-])@${escaped}(?![\\w-])`, 'i');
    if (mentionPatterns.size < 16) mentionPatterns.set(handle, pattern);
  }
  return pattern;
}
