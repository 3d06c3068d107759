import type { ServiceHost } from '@caravel/platform';

/** A request as its sender signs it. */
export interface SignedRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer | string;
}

/** What a webhook route answered: the status, `Retry-After`, the JSON body and its text. */
export interface WebhookReply {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
  text: string;
}

/** POSTs `request` to `host` (JSON unless its headers say otherwise) and reads the answer. */
export async function postWebhook(
  host: ServiceHost,
  request: SignedRequest,
): Promise<WebhookReply> {
  const response = await fetch(`${host.url}${request.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...request.headers },
    body: request.body,
  });
  const text = await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: JSON.parse(text) as Record<string, unknown>,
    text,
  };
}

/** The error `act` throws; fails the test when it throws nothing. */
export function refusal(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('it was accepted');
}
