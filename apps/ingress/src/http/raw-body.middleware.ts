import { readRequestBody } from '@caravel/platform';
import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';

/** GitHub's cap on a webhook payload; nothing larger is ever sent. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/** Where the raw body is kept on the request. */
const RAW = Symbol('caravel.raw-body');
type WithRawBody = Request & { [RAW]?: Buffer };

/** The raw bytes read for a `/webhooks/*` request; an empty buffer when there were none. */
export function rawBodyOf(request: Request): Buffer {
  return (request as WithRawBody)[RAW] ?? Buffer.alloc(0);
}

/** The answer to a body over {@link MAX_WEBHOOK_BYTES}, given before the rest is read. */
export const BODY_TOO_LARGE = {
  status: 413,
  body: { error: { code: 'BAD_REQUEST', message: 'webhook body too large' } },
} as const;

/** Reads the whole body into a Buffer, whatever its content type ({@link readRequestBody}). */
export function readRawBody(request: Request, response: Response, next: NextFunction): void {
  readRequestBody(request, MAX_WEBHOOK_BYTES).then((body) => {
    if (!body) {
      response.status(BODY_TOO_LARGE.status).json(BODY_TOO_LARGE.body);
      request.destroy();
      return;
    }
    (request as WithRawBody)[RAW] = body;
    next();
  }, next);
}

/**
 * Mounts {@link readRawBody} on `/connect` (and on `/webhooks`, whose known routes are direct ones:
 * a path there that is none of them still answers 404 whatever its body) when the module is
 * instantiated. That is before
 * Nest's `init()` registers its global JSON and urlencoded parsers, so for these routes the raw
 * reader runs first, consumes the stream, and the parsers then skip a finished request. Every
 * other route keeps Nest's parsing.
 */
@Injectable()
export class RawBodyInstaller {
  constructor(adapterHost: HttpAdapterHost) {
    adapterHost.httpAdapter.use('/webhooks', readRawBody);
    adapterHost.httpAdapter.use('/connect', readRawBody);
  }
}
