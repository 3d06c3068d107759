import { contextOfTraceparent, SpanKind } from '@caravel/messaging';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { routeOf } from './http-metrics.js';

const tracer = () => trace.getTracer('caravel.http');

/**
 * A server span for every HTTP request when traces are on (a no-op when off): a child of the
 * caller's W3C `traceparent` when it sends one, named after the matched route (`POST
 * /webhooks/:source`, never the raw path), active while the route runs so what it publishes on
 * the bus joins its trace.
 */
export function httpTracing(request: Request, response: Response, next: NextFunction): void {
  const header = request.headers['traceparent'];
  const parent = contextOfTraceparent(typeof header === 'string' ? header : undefined);
  const span = tracer().startSpan(
    request.method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } },
    parent,
  );
  if (!span.isRecording()) {
    next();
    return;
  }
  response.once('close', () => {
    const route = routeOf(request);
    span.updateName(`${request.method} ${route}`);
    span.setAttribute('http.route', route);
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
}
