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

/**
 * A completed `check_run` delivery on acme/widgets at `headSha`, naming pull request `number`
 * (by the web `url` given), as GitHub sends it.
 */
export function checkRun(
  pull: { number: number; url: string },
  headSha: string,
  conclusion: string,
  detailsUrl = 'https://ci.example/lint/1',
) {
  return {
    action: 'completed',
    check_run: {
      name: 'lint',
      head_sha: headSha,
      status: 'completed',
      conclusion,
      details_url: detailsUrl,
      pull_requests: [pull],
    },
    repository: { name: 'widgets', private: true, owner: { login: 'acme', type: 'Organization' } },
  };
}
