import { AppError, httpStatusFor, retryAfterSecondsFor } from '@caravel/errors';
import {
  Catch,
  HttpException,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { Response } from 'express';
import { throwError, type Observable } from 'rxjs';

interface ErrorBody {
  error: { code: string; message: string };
}

/**
 * One filter for HTTP and bus handlers. Bus handlers get their original error back (so the
 * messaging library can settle from `retryable`); HTTP callers get `{ error: { code, message } }`
 * with the mapped status (and `Retry-After` where the code calls for one, e.g. a dependency
 * outage's 503) and never a stack trace.
 */
@Catch()
export class AppErrorFilter implements ExceptionFilter {
  private readonly log = new Logger('AppErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() === 'rpc') return throwError(() => exception);
    const response = host.switchToHttp().getResponse<Response>();
    const [status, body] = this.toHttp(exception);
    if (status >= 500)
      this.log.error(exception instanceof Error ? exception.stack : String(exception));
    const retryAfter = exception instanceof AppError ? retryAfterSecondsFor(exception) : undefined;
    if (retryAfter !== undefined) response.setHeader('Retry-After', String(retryAfter));
    response.status(status).json(body);
  }

  private toHttp(exception: unknown): [number, ErrorBody] {
    if (exception instanceof AppError) {
      return [
        httpStatusFor(exception.code),
        { error: { code: exception.code, message: exception.message } },
      ];
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      return [
        status,
        {
          error: { code: status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', message: exception.message },
        },
      ];
    }
    return [500, { error: { code: 'INTERNAL', message: 'internal error' } }];
  }
}
