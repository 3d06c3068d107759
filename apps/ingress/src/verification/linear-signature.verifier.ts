import { AppError } from '@caravel/errors';
import { verifyBodySignature, type BodySignatureScheme } from './signed-request.js';

/** How far the signed `webhookTimestamp` may be from our clock (Linear's SDK uses 60 s). */
export const LINEAR_MAX_SKEW_MS = 60_000;

const LINEAR_SIGNATURE: BodySignatureScheme = {
  setting: 'LINEAR_WEBHOOK_SECRET',
  header: 'Linear-Signature',
  prefix: '',
};

/**
 * Linear's `Linear-Signature`: hex HMAC-SHA256 of the raw body, no prefix. Fails closed on an
 * unset secret or a missing header. While the secret rotates, `previous` is accepted too.
 */
export function verifyLinearSignature(
  rawBody: Buffer,
  signature: string | undefined,
  secret: string | undefined,
  previous?: string,
): void {
  verifyBodySignature('linear', LINEAR_SIGNATURE, rawBody, signature, {
    current: secret,
    previous,
  });
}

/**
 * Freshness from the `webhookTimestamp` inside the signed body (epoch ms): a header timestamp
 * is not signed, so it can never rescue a stale body. Missing or stale is a 400, as Linear's SDK
 * answers.
 */
export function checkLinearFreshness(webhookTimestamp: unknown, now: Date): void {
  if (typeof webhookTimestamp !== 'number' || !Number.isFinite(webhookTimestamp)) {
    throw new AppError('BAD_REQUEST', 'linear webhook rejected: webhookTimestamp is missing');
  }
  const skew = Math.abs(now.getTime() - webhookTimestamp);
  if (skew > LINEAR_MAX_SKEW_MS) {
    throw new AppError(
      'BAD_REQUEST',
      `linear webhook rejected: webhookTimestamp is ${skew} ms old`,
    );
  }
}
