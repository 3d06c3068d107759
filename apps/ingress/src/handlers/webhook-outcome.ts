import { toAppError } from '@caravel/errors';
import { webhooks } from '@caravel/metrics';
import type { Response } from 'express';
import type { WebhookAnswer } from '../services/webhook-answer.js';

/** The outcome a webhook answer stands for: accepted, recorded, duplicate or ignored. */
export function outcomeOf(answer: WebhookAnswer): string {
  if (answer.body['accepted'] === true) return 'accepted';
  const reason = answer.body['reason'];
  return reason === 'recorded' || reason === 'duplicate' ? reason : 'ignored';
}

/**
 * Handles one delivery and counts its outcome by source (`caravel_webhooks_total`). A refused
 * delivery counts under its error code (`signature_invalid` for a bad signature), then goes on to the
 * error filter as before.
 */
export async function countedWebhook(
  source: string,
  handle: () => Promise<WebhookAnswer>,
): Promise<WebhookAnswer> {
  try {
    const answer = await handle();
    webhooks.inc({ source, outcome: outcomeOf(answer) });
    return answer;
  } catch (error) {
    webhooks.inc({ source, outcome: toAppError(error).code.toLowerCase() });
    throw error;
  }
}

/** A webhook route's JSON answer. */
export type WebhookBody = Record<string, unknown>;

/** Sets the answer's status on the response and hands its body back for Nest to send. */
export function reply(response: Response, answer: WebhookAnswer): WebhookBody {
  response.status(answer.status);
  return answer.body;
}
