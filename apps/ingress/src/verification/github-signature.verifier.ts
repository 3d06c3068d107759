import { verifyBodySignature, type BodySignatureScheme } from './signed-request.js';

const GITHUB_SIGNATURE: BodySignatureScheme = {
  setting: 'GITHUB_WEBHOOK_SECRET',
  header: 'X-Hub-Signature-256',
  prefix: 'sha256=',
};

/**
 * GitHub's `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the raw body. Fails closed: an
 * unset secret or a missing header is a rejection, as is the legacy SHA-1 `sha1=` form. While
 * the secret rotates, `previous` is accepted too.
 */
export function verifyGithubSignature(
  rawBody: Buffer,
  signature: string | undefined,
  secret: string | undefined,
  previous?: string,
): void {
  verifyBodySignature('github', GITHUB_SIGNATURE, rawBody, signature, {
    current: secret,
    previous,
  });
}
