import { createHmac, randomUUID } from 'node:crypto';

/** POSTs `payload` to a host's GitHub webhook route as GitHub does: signed with `secret`. */
export function postGithubWebhook(
  hostUrl: string,
  secret: string,
  event: string,
  payload: unknown,
): Promise<Response> {
  const body = JSON.stringify(payload);
  return fetch(`${hostUrl}/webhooks/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
}
