import { CLOCK, type Clock } from '@caravel/config';
import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { mapGithubEvent, type GithubMapperSettings } from '../events/github-event.mapper.js';
import {
  AutoReviewRepositories,
  GithubRepositoryPolicy,
} from '../events/github-repository-policy.js';
import { mapJiraEvent, parseJiraRuleBody } from '../events/jira-event.mapper.js';
import { mapLinearEvent } from '../events/linear-event.mapper.js';
import { mapSlackEvent } from '../events/slack-event.mapper.js';
import { readUntrustedJson } from '../events/untrusted-json.js';
import { payloadMalformed } from '../ingress.errors.js';
import { INGRESS_CONFIG, type IngressConfig } from '../ingress.config.js';
import { verifyGithubSignature } from '../verification/github-signature.verifier.js';
import { headerValue } from '../verification/headers.js';
import { verifyJiraRequest } from '../verification/jira-secret.verifier.js';
import {
  checkLinearFreshness,
  verifyLinearSignature,
} from '../verification/linear-signature.verifier.js';
import { verifySlackSignature } from '../verification/slack-signature.verifier.js';
import { JiraReadBackService } from './jira-read-back.service.js';
import { TriggerIntakeService } from './trigger-intake.service.js';
import type { WebhookAnswer } from './webhook-answer.js';

/**
 * One method per source: verify the raw bytes (before anything is parsed), read the body through
 * the one boundary for untrusted JSON ({@link readUntrustedJson}), map the event, hand the
 * decision to the intake. Jira's body is a pointer, read back from Jira before it is mapped.
 */
@Injectable()
export class SourceWebhooksService {
  private readonly githubMapping: GithubMapperSettings;

  constructor(
    private readonly intake: TriggerIntakeService,
    private readonly jiraReadBack: JiraReadBackService,
    @Inject(INGRESS_CONFIG) private readonly config: IngressConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    const { github } = config;
    this.githubMapping = {
      botHandle: github.botHandle,
      triggerLabel: github.triggerLabel,
      repositories: new GithubRepositoryPolicy(github.allowedOrgs, github.allowedRepos),
      autoReview: new AutoReviewRepositories(github.autoReviewRepos),
      autoReviewDrafts: github.autoReviewDrafts,
    };
  }

  async github(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<WebhookAnswer> {
    const signature = headerValue(headers, 'x-hub-signature-256');
    verifyGithubSignature(
      rawBody,
      signature,
      this.config.webhooks.github.secret.current,
      this.config.webhooks.github.secret.previous,
    );
    const event = headerValue(headers, 'x-github-event');
    const deliveryId = headerValue(headers, 'x-github-delivery');
    if (!event || !deliveryId) {
      throw payloadMalformed('github', 'X-GitHub-Event or X-GitHub-Delivery is missing');
    }
    const body = readUntrustedJson('github', rawBody, githubJson(rawBody, headers));
    const decision = mapGithubEvent(
      { event, deliveryId, payload: body.payload },
      this.githubMapping,
    );
    return this.intake.take(decision, body);
  }

  async slack(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<WebhookAnswer> {
    verifySlackSignature(
      rawBody,
      {
        signature: headerValue(headers, 'x-slack-signature'),
        timestamp: headerValue(headers, 'x-slack-request-timestamp'),
      },
      this.config.webhooks.slack.signingSecret.current,
      this.clock.now(),
      this.config.webhooks.slack.signingSecret.previous,
    );
    const body = readUntrustedJson('slack', rawBody);
    const decision = mapSlackEvent(body.payload, {
      botUserId: this.config.webhooks.slack.botUserId,
    });
    if (decision.kind === 'challenge') {
      return { status: 200, body: { challenge: decision.challenge } };
    }
    return this.intake.take(decision, body);
  }

  async linear(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<WebhookAnswer> {
    const signature = headerValue(headers, 'linear-signature');
    verifyLinearSignature(
      rawBody,
      signature,
      this.config.webhooks.linear.secret.current,
      this.config.webhooks.linear.secret.previous,
    );
    const body = readUntrustedJson('linear', rawBody);
    checkLinearFreshness(
      (body.payload as { webhookTimestamp?: unknown } | null)?.webhookTimestamp,
      this.clock.now(),
    );
    const decision = mapLinearEvent(
      { deliveryHeader: headerValue(headers, 'linear-delivery'), payload: body.payload },
      { botUserId: this.config.webhooks.linear.botUserId, botHandle: this.config.github.botHandle },
    );
    return this.intake.take(decision, body);
  }

  async jira(rawBody: Buffer, headers: IncomingHttpHeaders): Promise<WebhookAnswer> {
    const { jira } = this.config.webhooks;
    verifyJiraRequest(
      rawBody,
      {
        secret: headerValue(headers, jira.secretHeader),
        timestamp: headerValue(headers, 'x-caravel-timestamp'),
        signature: headerValue(headers, 'x-caravel-signature'),
      },
      {
        sharedSecret: jira.sharedSecret.current,
        hmacSecret: jira.hmacSecret.current,
        previousSharedSecret: jira.sharedSecret.previous,
        previousHmacSecret: jira.hmacSecret.previous,
      },
      this.clock.now(),
    );
    const body = readUntrustedJson('jira', rawBody);
    const rule = parseJiraRuleBody(body.payload);
    const read = await this.jiraReadBack.read(rule);
    return this.intake.take(mapJiraEvent(rule, read), body);
  }
}

/**
 * The JSON text of a verified GitHub delivery. A webhook created through the REST API sends
 * `application/x-www-form-urlencoded` unless told otherwise: `payload=<url-encoded JSON>`. The
 * signature covers the form bytes as sent (checked before this), the JSON is the decoded field.
 */
function githubJson(rawBody: Buffer, headers: IncomingHttpHeaders): string {
  const mediaType = headerValue(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') return rawBody.toString('utf8');
  const payload = new URLSearchParams(rawBody.toString('utf8')).get('payload');
  if (payload === null) {
    throw payloadMalformed('github', 'a form-encoded delivery without its payload field');
  }
  return payload;
}
