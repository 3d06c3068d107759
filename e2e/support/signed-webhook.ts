import { expect } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import { githubPayload } from '../../apps/ingress/src/events/payload.factory.js';

/**
 * Delivers an `issue_comment` mention to ingress at `baseUrl` as GitHub would: the body signed
 * with `secret` (`x-hub-signature-256`), a fresh delivery id. Resolves with the thread ingress
 * derived once it accepted the delivery.
 */
export async function deliverGithubMention(
  baseUrl: string,
  secret: string,
  text: string,
): Promise<string> {
  const body = JSON.stringify(githubPayload.issueComment(text));
  const response = await fetch(`${baseUrl}/webhooks/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  const answer = (await response.json()) as { accepted: boolean; threadId: string };
  expect({ status: response.status, ...answer }).toMatchObject({ status: 200, accepted: true });
  return answer.threadId;
}
