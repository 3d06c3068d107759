import { httpRequestDuration, httpRequests, startTimer } from '@caravel/metrics';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The matched route's pattern (`/api/threads/:id`), or `unmatched`: never the path a client sent. */
export function routeOf(request: Request): string {
  const pattern = (request.route as { path?: unknown } | undefined)?.path;
  return typeof pattern === 'string' ? `${request.baseUrl}${pattern}` || '/' : 'unmatched';
}

/**
 * Counts and times one HTTP answer by method, route pattern and status once it is sent. The label
 * is a route's pattern (`/api/threads/:id`), never the path a client sent: unknown paths all count
 * as `unmatched`, so a scanner cannot grow the series without bound. `route` is asked then.
 */
export function countHttpAnswer(
  request: IncomingMessage,
  response: ServerResponse,
  route: () => string,
): void {
  const elapsed = startTimer();
  response.once('finish', () => {
    const matched = route();
    const method = request.method ?? 'GET';
    httpRequests.inc({ method, route: matched, status: String(response.statusCode) });
    httpRequestDuration.observe({ method, route: matched }, elapsed());
  });
}

/** {@link countHttpAnswer} for every request the framework routes. */
export function httpMetrics(request: Request, response: Response, next: NextFunction): void {
  countHttpAnswer(request, response, () => routeOf(request));
  next();
}
