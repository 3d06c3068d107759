import { httpRequestDuration, httpRequests, startTimer } from '@caravel/metrics';
import type { NextFunction, Request, Response } from 'express';

/** The matched route's pattern (`/api/threads/:id`), or `unmatched`: never the path a client sent. */
export function routeOf(request: Request): string {
  const pattern = (request.route as { path?: unknown } | undefined)?.path;
  return typeof pattern === 'string' ? `${request.baseUrl}${pattern}` || '/' : 'unmatched';
}

/**
 * Counts and times every HTTP answer by method, route pattern and status. The label is the
 * matched route's pattern (`/api/threads/:id`), never the path a client sent: unknown paths all
 * count as `unmatched`, so a scanner cannot grow the series without bound.
 */
export function httpMetrics(request: Request, response: Response, next: NextFunction): void {
  const elapsed = startTimer();
  response.once('finish', () => {
    const route = routeOf(request);
    const method = request.method;
    httpRequests.inc({ method, route, status: String(response.statusCode) });
    httpRequestDuration.observe({ method, route }, elapsed());
  });
  next();
}
