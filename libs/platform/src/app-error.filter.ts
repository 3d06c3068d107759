import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { throwError, type Observable } from 'rxjs';
import { httpAnswerOfError } from './http-answer.js';

/**
 * One filter for HTTP and bus handlers. Bus handlers get their original error back (so the
 * messaging library can settle from `retryable`); HTTP callers get the coded answer of
 * {@link httpAnswerOfError}, never a stack trace.
 */
@Catch()
export class AppErrorFilter implements ExceptionFilter {
  private readonly log = new Logger('AppErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() === 'rpc') return throwError(() => exception);
    const response = host.switchToHttp().getResponse<Response>();
    const answer = httpAnswerOfError(exception, this.log);
    for (const [name, value] of Object.entries(answer.headers ?? {})) {
      response.setHeader(name, value);
    }
    response.status(answer.status).json(answer.body);
  }
}
