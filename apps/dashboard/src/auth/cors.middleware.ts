import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { OriginPolicy } from './origin-policy.js';

const METHODS = 'GET, POST, PUT, DELETE';
const HEADERS = 'content-type, authorization, last-event-id';

/**
 * Credentialed CORS for the configured DASHBOARD_ALLOWED_ORIGINS only: their requests get
 * `Access-Control-Allow-Origin: <that origin>` with credentials, and their preflights an answer.
 * Any other origin gets no CORS header, so its page cannot read an answer (and its mutations
 * are refused by the same-origin check before they do anything).
 */
@Injectable()
export class CorsMiddleware implements NestMiddleware {
  constructor(@Inject(OriginPolicy) private readonly origins: OriginPolicy) {}

  use(request: Request, response: Response, next: NextFunction): void {
    response.vary('Origin');
    const origin = this.origins.corsOrigin(request);
    if (origin) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    if (request.method !== 'OPTIONS') {
      next();
      return;
    }
    if (origin) {
      response.setHeader('Access-Control-Allow-Methods', METHODS);
      response.setHeader('Access-Control-Allow-Headers', HEADERS);
      response.setHeader('Access-Control-Max-Age', '600');
    }
    response.status(origin ? 204 : 403).end();
  }
}
