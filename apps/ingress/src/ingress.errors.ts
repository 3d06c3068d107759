import { AppError } from '@caravel/errors';

/** A request that fails verification: 401 with a coded body, whatever the reason. */
export function signatureInvalid(source: string, reason: string): AppError {
  return new AppError('SIGNATURE_INVALID', `${source} webhook rejected: ${reason}`);
}

/** A verified request whose body is not what the sender documents. */
export function payloadMalformed(source: string, reason: string): AppError {
  return new AppError('MESSAGE_MALFORMED', `${source} webhook body malformed: ${reason}`);
}
