import { AppError } from '@caravel/errors';
import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { rawBodyOf } from '../http/raw-body.middleware.js';
import {
  ConfluenceConnectService,
  type ConnectCall,
} from '../services/confluence-connect.service.js';
import { splitRequestTarget } from '../verification/connect-jwt.verifier.js';
import { reply, type WebhookBody } from './webhook-outcome.js';

function callOf(req: Request): ConnectCall {
  return {
    method: req.method,
    ...splitRequestTarget(req.originalUrl),
    headers: req.headers,
    rawBody: rawBodyOf(req),
  };
}

/** The Atlassian Connect app's routes: descriptor, lifecycle callbacks, webhooks. */
@Controller('connect')
export class ConnectController {
  constructor(private readonly connect: ConfluenceConnectService) {}

  @Get('atlassian-connect.json')
  descriptor(): WebhookBody {
    const descriptor = this.connect.descriptor();
    if (!descriptor) throw new AppError('PRECONDITION_FAILED', 'CONFLUENCE_BASE_URL is unset');
    return descriptor;
  }

  @Post('installed')
  async installed(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookBody> {
    return reply(res, await this.connect.installed(callOf(req)));
  }

  @Post('uninstalled')
  async uninstalled(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookBody> {
    return reply(res, await this.connect.uninstalled(callOf(req)));
  }

  @Post('webhooks/comment-created')
  async commentCreated(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookBody> {
    return reply(res, await this.connect.commentCreated(callOf(req)));
  }
}
