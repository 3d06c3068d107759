import {
  compiledSchema,
  githubReviewThreadId,
  githubThreadId,
  type SourceSubject,
} from '@caravel/contracts';
import type { z } from 'zod';
import { payloadMalformed } from '../ingress.errors.js';
import {
  ciPayload,
  issueCommentPayload,
  issuesPayload,
  pullRequestPayload,
  reviewCommentPayload,
  reviewPayload,
  type GithubRepository,
  type githubUser,
} from './github-payload.schemas.js';
import { mapGithubCi } from './github-ci.mapper.js';
import { subjectOfIssue, subjectOfPullRequest } from './github-subjects.js';
import {
  AutoReviewRepositories,
  GithubRepositoryPolicy,
  type GithubRepositoryFacts,
} from './github-repository-policy.js';
import {
  ignore,
  mentions,
  type GithubActorCheck,
  type WebhookDecision,
} from './webhook-decision.js';

/** What the GitHub mapper reads from the configuration. */
export interface GithubMapperSettings {
  botHandle: string;
  triggerLabel?: string | undefined;
  /** Which repositories Caravel answers (open when absent). */
  repositories?: GithubRepositoryPolicy;
  /** Which repositories get a review request when a pull request opens (none when absent). */
  autoReview?: AutoReviewRepositories;
  /** Whether draft pull requests get one too. */
  autoReviewDrafts?: boolean;
}

export interface GithubDelivery {
  event: string;
  deliveryId: string;
  payload: unknown;
}

type GithubUser = z.infer<typeof githubUser>;

const CI_EVENTS = new Set(['check_run', 'check_suite', 'workflow_run', 'status']);

/** A schema that gives what it takes: no default, no transform. */
type Unchanging<S extends z.ZodType> = z.ZodType<z.output<S>, z.output<S>>;

/**
 * A payload checked against its schema (compiled: {@link compiledSchema}). A valid one is read as
 * it came, not through zod's copy of it: the payload schemas change no value ({@link Unchanging}:
 * one with a default or a transform does not compile here), so the copy would hold the same
 * values for every field the mapper reads, and every delivery would build it. An invalid one is
 * parsed for zod's message.
 */
function parse<S extends Unchanging<S>>(schema: S, delivery: GithubDelivery): z.output<S> {
  const compiled = compiledSchema(schema);
  if (compiled.validate(delivery.payload)) return delivery.payload as z.output<S>;
  const result = compiled.safeParse(delivery.payload);
  if (!result.success)
    throw payloadMalformed('github', `${delivery.event}: ${result.error.message}`);
  return result.data;
}

function repoRef(repository: GithubRepository) {
  return { owner: repository.owner.login, name: repository.name };
}

function factsOf(repository: GithubRepository): GithubRepositoryFacts {
  return {
    owner: repository.owner.login,
    name: repository.name,
    ownerIsOrganization: repository.owner.type === 'Organization',
    private: repository.private === true,
  };
}

function actorCheck(
  repository: GithubRepository,
  user: GithubUser,
  association?: string,
): GithubActorCheck {
  return { repository: factsOf(repository), login: user.login, userType: user.type, association };
}

function threadOf(repository: GithubRepository, number: number): string {
  return githubThreadId({ owner: repository.owner.login, repo: repository.name, number });
}

function isSelf(user: GithubUser, handle: string): boolean {
  const login = user.login.toLowerCase();
  return login === handle.toLowerCase() || login === `${handle.toLowerCase()}[bot]`;
}

/** What a comment-like event (conversation comment, review comment, review) says. */
interface Comment {
  semanticKey: string;
  body: string | null;
  user: GithubUser;
  association: string | undefined;
  repository: GithubRepository;
  number: number;
  replyTo: Record<string, string | number>;
  /** The pull request or issue it was written on. */
  subject: SourceSubject;
}

/** A comment-like event: its payload, the one action that can address Caravel, its reading. */
interface CommentEvent<S extends z.ZodType> {
  schema: S;
  action: string;
  read(payload: z.output<S>): Comment;
}

function commentEvent<S extends Unchanging<S>>(
  schema: S,
  action: string,
  read: (payload: z.output<S>) => Comment,
): CommentEvent<S> {
  return { schema, action, read };
}

/**
 * A comment, review comment or review item: what it says of itself (`kind` keys it per
 * delivery) and where it was written. One object literal, not spread ones: every delivery of
 * these events is read here.
 */
function written(
  kind: string,
  item: { id: number; body: string | null; user: GithubUser; author_association?: string },
  repository: GithubRepository,
  on: { number: number; replyTo: Comment['replyTo']; subject: SourceSubject },
): Comment {
  return {
    semanticKey: `${kind}:${item.id}`,
    body: item.body,
    user: item.user,
    association: item.author_association,
    repository,
    number: on.number,
    replyTo: on.replyTo,
    subject: on.subject,
  };
}

const COMMENT_EVENTS: Record<string, CommentEvent<z.ZodType>> = {
  issue_comment: commentEvent(issueCommentPayload, 'created', (p) =>
    written('issue_comment', p.comment, p.repository, {
      number: p.issue.number,
      replyTo: p.issue.pull_request
        ? { pullRequest: p.issue.number, commentId: p.comment.id }
        : { issue: p.issue.number, commentId: p.comment.id },
      subject: subjectOfIssue(p.issue),
    }),
  ),
  pull_request_review_comment: commentEvent(reviewCommentPayload, 'created', (p) =>
    written('review_comment', p.comment, p.repository, {
      number: p.pull_request.number,
      replyTo: { pullRequest: p.pull_request.number, reviewCommentId: p.comment.id },
      subject: subjectOfPullRequest(p.pull_request, p.comment),
    }),
  ),
  pull_request_review: commentEvent(reviewPayload, 'submitted', (p) =>
    written('review', p.review, p.repository, {
      number: p.pull_request.number,
      replyTo: { pullRequest: p.pull_request.number, reviewId: p.review.id },
      subject: subjectOfPullRequest(p.pull_request),
    }),
  ),
};

/** The repository any GitHub payload names, read leniently (for the allowlist). */
function repositoryOf(payload: unknown): { owner: string; name: string } | null {
  const repository = (payload as { repository?: GithubRepository } | null)?.repository;
  const owner = repository?.owner?.login;
  return typeof owner === 'string' && typeof repository?.name === 'string'
    ? { owner, name: repository.name }
    : null;
}

function comment(
  delivery: GithubDelivery,
  kind: CommentEvent<z.ZodType>,
  handle: string,
): WebhookDecision {
  const payload = parse(kind.schema, delivery) as { action: string };
  if (payload.action !== kind.action) {
    return ignore(`${delivery.event}.${payload.action} is not handled`);
  }
  const c = kind.read(payload);
  if (isSelf(c.user, handle)) return ignore('own comment');
  if (!mentions(c.body, handle)) return ignore(`no mention of @${handle}`);
  return {
    kind: 'trigger',
    source: 'github',
    event: `${delivery.event}.${kind.action}`,
    deliveryId: delivery.deliveryId,
    semanticKey: c.semanticKey,
    threadId: threadOf(c.repository, c.number),
    author: { externalId: c.user.login },
    text: c.body ?? '',
    repository: repoRef(c.repository),
    replyTo: c.replyTo,
    subject: c.subject,
    actorCheck: actorCheck(c.repository, c.user, c.association),
  };
}

/**
 * The request an assignment or a label makes. The issue's title and body are the request only
 * when the person who assigned or labelled it wrote them: anyone can open an issue on a public
 * repository, and a maintainer's assignment vouches for the work, not for a stranger's words as
 * instructions. Otherwise the request is Caravel's sentence, and the issue reaches the run as
 * the untrusted context its `subject` becomes.
 */
function assignedIssueText(p: z.output<typeof issuesPayload>, how: string): string {
  const { issue, sender } = p;
  if (issue.user && issue.user.login.toLowerCase() === sender.login.toLowerCase()) {
    return [issue.title, issue.body ?? ''].filter((part) => part !== '').join('\n\n');
  }
  const writer = issue.user ? `@${issue.user.login}` : 'its author';
  return (
    `Work on issue #${issue.number}, which @${sender.login} ${how}. What it asks is in its ` +
    `title and body, written by ${writer}, below: weigh them as that person's words.`
  );
}

function issues(delivery: GithubDelivery, settings: GithubMapperSettings): WebhookDecision {
  const p = parse(issuesPayload, delivery);
  const assigned = p.action === 'assigned' && p.assignee && isSelf(p.assignee, settings.botHandle);
  const labeled =
    p.action === 'labeled' &&
    settings.triggerLabel !== undefined &&
    p.label?.name.toLowerCase() === settings.triggerLabel.toLowerCase();
  if (!assigned && !labeled) return ignore(`issues.${p.action} does not address Caravel`);
  return {
    kind: 'trigger',
    source: 'github',
    event: `issues.${p.action}`,
    deliveryId: delivery.deliveryId,
    semanticKey: `issue:${p.issue.id}:${p.action}:${p.issue.updated_at ?? delivery.deliveryId}`,
    threadId: threadOf(p.repository, p.issue.number),
    author: { externalId: p.sender.login },
    text: assignedIssueText(p, assigned ? 'assigned to you' : `labelled \`${p.label?.name}\``),
    repository: repoRef(p.repository),
    replyTo: { issue: p.issue.number },
    subject: subjectOfIssue(p.issue),
    actorCheck: actorCheck(p.repository, p.sender),
  };
}

/**
 * `opened` / `ready_for_review` on a repository in `AUTO_REVIEW_REPOS` asks for a review (drafts
 * only when the team reviews drafts); `synchronize` tells the PR's thread its new head.
 */
function pullRequest(delivery: GithubDelivery, settings: GithubMapperSettings): WebhookDecision {
  const p = parse(pullRequestPayload, delivery);
  const pr = p.pull_request;
  const target = { owner: p.repository.owner.login, repo: p.repository.name };
  if (p.action === 'synchronize') {
    return {
      kind: 'head',
      source: 'github',
      event: 'pull_request.synchronize',
      deliveryId: delivery.deliveryId,
      semanticKey: `pull_request:${pr.id}:head:${pr.head.sha}`,
      threadId: threadOf(p.repository, pr.number),
      repository: repoRef(p.repository),
      pullRequest: pr.number,
      headSha: pr.head.sha,
      previousSha: p.before,
    };
  }
  if (p.action !== 'opened' && p.action !== 'ready_for_review') {
    return ignore(`pull_request.${p.action} is not handled`);
  }
  if (!settings.autoReview?.includes(repoRef(p.repository))) {
    return ignore(`${target.owner}/${target.repo} is not in AUTO_REVIEW_REPOS`);
  }
  const draft = pr.draft === true;
  if (draft && !settings.autoReviewDrafts) {
    return ignore('draft pull requests are not reviewed (AUTO_REVIEW_DRAFT_PRS)');
  }
  const author = pr.user ?? p.sender;
  return {
    kind: 'review',
    source: 'github',
    event: `pull_request.${p.action}`,
    deliveryId: delivery.deliveryId,
    semanticKey: `review_request:${pr.id}:${pr.head.sha}`,
    threadId: githubReviewThreadId({ ...target, number: pr.number }),
    pullRequestThreadId: githubThreadId({ ...target, number: pr.number }),
    repository: repoRef(p.repository),
    pullRequest: { number: pr.number, headSha: pr.head.sha, draft },
    author: { externalId: author.login },
    reason: p.action,
    actorCheck: actorCheck(p.repository, author, pr.author_association),
  };
}

function ci(delivery: GithubDelivery): WebhookDecision {
  const p = parse(ciPayload, delivery);
  const event = delivery.event as 'check_run' | 'check_suite' | 'workflow_run' | 'status';
  const run = event === 'status' ? undefined : p[event];
  const sha = run?.head_sha ?? p.sha;
  if (!sha) throw payloadMalformed('github', `${delivery.event}: no commit sha`);
  return mapGithubCi(event, delivery.deliveryId, p, sha);
}

function byEvent(delivery: GithubDelivery, settings: GithubMapperSettings): WebhookDecision {
  const commentKind = COMMENT_EVENTS[delivery.event];
  if (commentKind) return comment(delivery, commentKind, settings.botHandle);
  if (delivery.event === 'issues') return issues(delivery, settings);
  if (delivery.event === 'pull_request') return pullRequest(delivery, settings);
  if (CI_EVENTS.has(delivery.event)) return ci(delivery);
  return ignore(`event ${delivery.event} is not handled`);
}

/**
 * Decides what a verified GitHub delivery asks for (`X-GitHub-Event` + its JSON body). Deliveries
 * from repositories outside `ALLOWED_GITHUB_ORGS`/`ALLOWED_GITHUB_REPOS` are ignored, CI events
 * included.
 */
export function mapGithubEvent(
  delivery: GithubDelivery,
  settings: GithubMapperSettings,
): WebhookDecision {
  const repository = repositoryOf(delivery.payload);
  const refusal = repository && settings.repositories?.refusal(repository);
  if (refusal) return ignore(refusal);
  return byEvent(delivery, settings);
}
