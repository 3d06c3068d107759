import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** An API answer is data: it loads nothing, runs nothing and is shown in no frame. */
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * Headers of every answer under `/api` and `/auth` (errors and unknown routes too): never kept by
 * a browser or a proxy (an answer holds thread text, a person's settings, a new token's secret),
 * never sniffed into another type, never framed, and not naming the server's framework. The web
 * app's own page and files set theirs ({@link WebController}).
 */
@Injectable()
export class ApiHeadersMiddleware implements NestMiddleware {
  use(_request: Request, response: Response, next: NextFunction): void {
    response.removeHeader('X-Powered-By');
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Content-Security-Policy', API_CONTENT_SECURITY_POLICY);
    next();
  }
}
