import { BodyBudget, readRequestBody } from '@caravel/platform';
import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';

/** GitHub's cap on a webhook payload; nothing larger is ever sent. */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/**
 * Bytes the webhook and Connect bodies being read may hold at once, before any of them is
 * verified (a signature covers the whole body): room for two of GitHub's largest and many more
 * ordinary ones, where a flood of 25 MB bodies, sent quickly or slowly, had no bound at all.
 */
export const WEBHOOK_BODIES_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

/** The process's one {@link BodyBudget} for unverified webhook and Connect bodies. */
@Injectable()
export class WebhookBodyBudget extends BodyBudget {
  constructor() {
    super(WEBHOOK_BODIES_IN_FLIGHT_BYTES);
  }
}

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

/**
 * Reads the whole body into a Buffer, whatever its content type ({@link readRequestBody}), within
 * `budget`; a body refused by it is answered by the error filter (429) and its rest dropped.
 */
export function rawBodyReader(budget: BodyBudget) {
  return (request: Request, response: Response, next: NextFunction): void => {
    readRequestBody(request, MAX_WEBHOOK_BYTES, budget).then(
      (body) => {
        if (!body) {
          response.status(BODY_TOO_LARGE.status).json(BODY_TOO_LARGE.body);
          request.destroy();
          return;
        }
        (request as WithRawBody)[RAW] = body;
        next();
      },
      (error: unknown) => {
        response.once('finish', () => request.destroy());
        next(error);
      },
    );
  };
}

/**
 * Mounts {@link rawBodyReader} on `/connect` (and on `/webhooks`, whose known routes are direct ones:
 * a path there that is none of them still answers 404 whatever its body) when the module is
 * instantiated. That is before
 * Nest's `init()` registers its global JSON and urlencoded parsers, so for these routes the raw
 * reader runs first, consumes the stream, and the parsers then skip a finished request. Every
 * other route keeps Nest's parsing.
 */
@Injectable()
export class RawBodyInstaller {
  constructor(adapterHost: HttpAdapterHost, budget: WebhookBodyBudget) {
    const read = rawBodyReader(budget);
    adapterHost.httpAdapter.use('/webhooks', read);
    adapterHost.httpAdapter.use('/connect', read);
  }
}
