import { AppError, isAppError } from '@caravel/errors';

/** A request that fails verification: 401 with a coded body, whatever the reason. */
export function signatureInvalid(source: string, reason: string): AppError {
  return new AppError('SIGNATURE_INVALID', `${source} webhook rejected: ${reason}`);
}

/** A verified request whose body is not what the sender documents. */
export function payloadMalformed(source: string, reason: string): AppError {
  return new AppError('MESSAGE_MALFORMED', `${source} webhook body malformed: ${reason}`);
}

/**
 * A delivery that is only a pointer, whose source's service account (which reads it back) is not
 * configured: refused, never taken on the body's word.
 */
export function serviceAccountMissing(source: string, settings: string): AppError {
  return new AppError(
    'PRECONDITION_FAILED',
    `${source} webhook refused: deliveries are read back as the service account; set ${settings}`,
  );
}

/** A delivery naming a site other than the configured one, which alone is ever read from. */
export function siteNotServed(source: string, named: string, configured: string): AppError {
  return new AppError(
    'FORBIDDEN',
    `${source} webhook refused: the body names site ${named}, but Caravel reads only from ${configured}`,
  );
}

/** `details.reason` of {@link githubAppUnset}. */
const GITHUB_APP_UNSET = 'github-app-unset';

/**
 * A question about GitHub people that dispatch, which asks GitHub for the ingress, could not put:
 * it has no GitHub App. The asker refuses as it would without an App (nothing to fail over to).
 */
export function githubAppUnset(question: string): AppError {
  return new AppError(
    'PRECONDITION_FAILED',
    `${question}: dispatch has no GitHub App (GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY unset)`,
    { details: { reason: GITHUB_APP_UNSET } },
  );
}

/** Whether `error` is {@link githubAppUnset}'s. */
export function isGithubAppUnset(error: unknown): boolean {
  return isAppError(error) && error.details['reason'] === GITHUB_APP_UNSET;
}
