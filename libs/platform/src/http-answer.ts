import { AppError, httpStatusFor, retryAfterSecondsFor } from '@caravel/errors';
import { HttpException, type Logger } from '@nestjs/common';

/** What an HTTP route answers: a status, a JSON body and any extra headers. */
export interface HttpAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * The one mapping of an error to an HTTP answer, for the framework's routes and the direct ones:
 * `{ error: { code, message } }` with the code's status (and `Retry-After` where the code calls
 * for one, e.g. a dependency outage's 503), never a stack trace. A 5xx is logged with its stack.
 */
export function httpAnswerOfError(exception: unknown, log: Logger): HttpAnswer {
  const answer = answerOf(exception);
  if (answer.status >= 500) {
    log.error(exception instanceof Error ? exception.stack : String(exception));
  }
  const retryAfter = exception instanceof AppError ? retryAfterSecondsFor(exception) : undefined;
  return retryAfter === undefined
    ? answer
    : { ...answer, headers: { 'Retry-After': String(retryAfter) } };
}

function answerOf(exception: unknown): HttpAnswer {
  if (exception instanceof AppError) {
    return {
      status: httpStatusFor(exception.code),
      body: { error: { code: exception.code, message: exception.message } },
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST';
    return { status, body: { error: { code, message: exception.message } } };
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } } };
}
