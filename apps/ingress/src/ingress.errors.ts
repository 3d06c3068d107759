import { AppError } from '@caravel/errors';

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
