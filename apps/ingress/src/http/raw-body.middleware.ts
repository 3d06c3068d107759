import { AppError } from '@caravel/errors';
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

function tooLarge(response: Response): void {
  response.status(413).json({ error: { code: 'BAD_REQUEST', message: 'webhook body too large' } });
}

/** Reads the whole body into a Buffer, whatever its content type. */
export function readRawBody(request: Request, response: Response, next: NextFunction): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_WEBHOOK_BYTES && !failed) {
      failed = true;
      tooLarge(response);
      request.destroy();
      return;
    }
    if (!failed) chunks.push(chunk);
  });
  request.on('end', () => {
    if (failed) return;
    (request as WithRawBody)[RAW] = Buffer.concat(chunks);
    next();
  });
  request.on('error', (error) => {
    if (failed) return;
    failed = true;
    next(new AppError('BAD_REQUEST', 'webhook body could not be read', { cause: error }));
  });
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
