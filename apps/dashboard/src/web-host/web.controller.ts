import { AppError } from '@caravel/errors';
import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { WebAssets } from './web-assets.js';

/**
 * The page may load only its own scripts and stylesheets (no inline script, no `<style>` element
 * or style attribute; styles set through the CSSOM, as React does, are not markup), talk only to
 * its own origin and show GitHub avatars; thread text rendered into it can never pull code in.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https://avatars.githubusercontent.com",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Caravel</title>
<p>The dashboard's web app is not built: run <code>node tools/scripts/build.mjs</code> (npm start does).</p></html>`;

/** Serves the web app at `/` (a single page; its routes live in the URL's hash). */
@Controller()
export class WebController {
  constructor(@Inject(WebAssets) private readonly assets: WebAssets) {}

  @Get()
  index(@Res() response: Response): void {
    const page = this.assets.get('index.html');
    this.headers(response, 'no-cache');
    response.type('html').send(page?.body ?? NOT_BUILT);
  }

  @Get('app/:file')
  file(@Param('file') file: string, @Res() response: Response): void {
    const asset = this.assets.get(file);
    if (!asset || file === 'index.html') throw new AppError('NOT_FOUND', `no web file ${file}`);
    this.headers(response, asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    response.setHeader('Content-Type', asset.contentType);
    response.send(asset.body);
  }

  private headers(response: Response, cache: string): void {
    response.removeHeader('X-Powered-By');
    response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'same-origin');
    response.setHeader('Cache-Control', cache);
  }
}
