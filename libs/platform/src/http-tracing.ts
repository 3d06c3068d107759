import { contextOfTraceparent, SpanKind } from '@caravel/messaging';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeOf } from './http-metrics.js';

const tracer = () => trace.getTracer('caravel.http');

/**
 * A server span for one HTTP request when traces are on (a no-op when off): a child of the
 * caller's W3C `traceparent` when it sends one, named after the matched route (`POST
 * /webhooks/github`, never the raw path), active while the route runs so what it publishes on
 * the bus joins its trace. `route` is asked once the answer is out.
 */
export function traceHttpRequest(
  request: IncomingMessage,
  response: ServerResponse,
  route: () => string,
  next: () => void,
): void {
  const method = request.method ?? 'GET';
  const header = request.headers['traceparent'];
  const parent = contextOfTraceparent(typeof header === 'string' ? header : undefined);
  const span = tracer().startSpan(
    method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
    parent,
  );
  if (!span.isRecording()) {
    next();
    return;
  }
  response.once('close', () => {
    const matched = route();
    span.updateName(`${method} ${matched}`);
    span.setAttribute('http.route', matched);
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
}

/** {@link traceHttpRequest} for the framework's routes, named after the route Express matched. */
export function httpTracing(request: Request, response: Response, next: NextFunction): void {
  traceHttpRequest(request, response, () => routeOf(request), next);
}
