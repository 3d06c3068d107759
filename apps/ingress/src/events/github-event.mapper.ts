import { githubCommitThreadId, githubThreadId } from '@caravel/contracts';
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
import { ignore, mentions, type WebhookDecision } from './webhook-decision.js';

/** What the GitHub mapper reads from the configuration. */
export interface GithubMapperSettings {
  botHandle: string;
  triggerLabel?: string | undefined;
}

export interface GithubDelivery {
  event: string;
  deliveryId: string;
  payload: unknown;
}

const CI_EVENTS = new Set(['check_run', 'check_suite', 'workflow_run', 'status']);

function parse<S extends z.ZodType>(schema: S, delivery: GithubDelivery): z.output<S> {
  const result = schema.safeParse(delivery.payload);
  if (!result.success)
    throw payloadMalformed('github', `${delivery.event}: ${result.error.message}`);
  return result.data;
}

function repoRef(repository: GithubRepository) {
  return { owner: repository.owner.login, name: repository.name };
}

function threadOf(repository: GithubRepository, number: number): string {
  return githubThreadId({ owner: repository.owner.login, repo: repository.name, number });
}

function isSelf(user: z.infer<typeof githubUser>, handle: string): boolean {
  const login = user.login.toLowerCase();
  return login === handle.toLowerCase() || login === `${handle.toLowerCase()}[bot]`;
}

interface Comment {
  event: string;
  semanticKey: string;
  body: string | null;
  user: z.infer<typeof githubUser>;
  repository: GithubRepository;
  number: number;
  replyTo: Record<string, string | number>;
}

function fromComment(delivery: GithubDelivery, comment: Comment, handle: string): WebhookDecision {
  if (isSelf(comment.user, handle)) return ignore('own comment');
  if (!mentions(comment.body, handle)) return ignore(`no mention of @${handle}`);
  return {
    kind: 'trigger',
    source: 'github',
    event: comment.event,
    deliveryId: delivery.deliveryId,
    semanticKey: comment.semanticKey,
    threadId: threadOf(comment.repository, comment.number),
    author: { externalId: comment.user.login },
    text: comment.body ?? '',
    repository: repoRef(comment.repository),
    replyTo: comment.replyTo,
  };
}

function issueComment(delivery: GithubDelivery, handle: string): WebhookDecision {
  const p = parse(issueCommentPayload, delivery);
  if (p.action !== 'created') return ignore(`issue_comment.${p.action} is not handled`);
  const kind = p.issue.pull_request ? 'pullRequest' : 'issue';
  return fromComment(
    delivery,
    {
      event: 'issue_comment.created',
      semanticKey: `issue_comment:${p.comment.id}`,
      body: p.comment.body,
      user: p.comment.user,
      repository: p.repository,
      number: p.issue.number,
      replyTo: { [kind]: p.issue.number, commentId: p.comment.id },
    },
    handle,
  );
}

function reviewComment(delivery: GithubDelivery, handle: string): WebhookDecision {
  const p = parse(reviewCommentPayload, delivery);
  if (p.action !== 'created')
    return ignore(`pull_request_review_comment.${p.action} is not handled`);
  return fromComment(
    delivery,
    {
      event: 'pull_request_review_comment.created',
      semanticKey: `review_comment:${p.comment.id}`,
      body: p.comment.body,
      user: p.comment.user,
      repository: p.repository,
      number: p.pull_request.number,
      replyTo: { pullRequest: p.pull_request.number, reviewCommentId: p.comment.id },
    },
    handle,
  );
}

function review(delivery: GithubDelivery, handle: string): WebhookDecision {
  const p = parse(reviewPayload, delivery);
  if (p.action !== 'submitted') return ignore(`pull_request_review.${p.action} is not handled`);
  return fromComment(
    delivery,
    {
      event: 'pull_request_review.submitted',
      semanticKey: `review:${p.review.id}`,
      body: p.review.body,
      user: p.review.user,
      repository: p.repository,
      number: p.pull_request.number,
      replyTo: { pullRequest: p.pull_request.number, reviewId: p.review.id },
    },
    handle,
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
    text: [p.issue.title, p.issue.body ?? ''].filter((part) => part !== '').join('\n\n'),
    repository: repoRef(p.repository),
    replyTo: { issue: p.issue.number },
  };
}

function pullRequest(delivery: GithubDelivery): WebhookDecision {
  const p = parse(pullRequestPayload, delivery);
  if (p.action !== 'opened' && p.action !== 'ready_for_review') {
    return ignore(`pull_request.${p.action} is not handled`);
  }
  return {
    kind: 'record',
    source: 'github',
    event: `pull_request.${p.action}`,
    deliveryId: delivery.deliveryId,
    semanticKey: `pull_request:${p.pull_request.id}:${p.action}:${p.pull_request.head.sha}`,
    threadId: threadOf(p.repository, p.pull_request.number),
  };
}

function ci(delivery: GithubDelivery): WebhookDecision {
  const p = parse(ciPayload, delivery);
  const run = p.check_run ?? p.check_suite ?? p.workflow_run;
  const sha = run?.head_sha ?? p.sha;
  if (!sha) throw payloadMalformed('github', `${delivery.event}: no commit sha`);
  const pr = run?.pull_requests[0]?.number;
  const target = { owner: p.repository.owner.login, repo: p.repository.name };
  return {
    kind: 'record',
    source: 'github',
    event: p.action ? `${delivery.event}.${p.action}` : delivery.event,
    deliveryId: delivery.deliveryId,
    semanticKey: null,
    threadId:
      pr === undefined
        ? githubCommitThreadId({ ...target, sha })
        : githubThreadId({ ...target, number: pr }),
  };
}

/** Decides what a verified GitHub delivery asks for (`X-GitHub-Event` + its JSON body). */
export function mapGithubEvent(
  delivery: GithubDelivery,
  settings: GithubMapperSettings,
): WebhookDecision {
  switch (delivery.event) {
    case 'issue_comment':
      return issueComment(delivery, settings.botHandle);
    case 'pull_request_review_comment':
      return reviewComment(delivery, settings.botHandle);
    case 'pull_request_review':
      return review(delivery, settings.botHandle);
    case 'issues':
      return issues(delivery, settings);
    case 'pull_request':
      return pullRequest(delivery);
    default:
      return CI_EVENTS.has(delivery.event)
        ? ci(delivery)
        : ignore(`event ${delivery.event} is not handled`);
  }
}
