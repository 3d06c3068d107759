import { Controller, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { rawBodyOf } from '../http/raw-body.middleware.js';
import { SourceWebhooksService } from '../services/source-webhooks.service.js';
import { countedWebhook, reply, type WebhookBody } from './webhook-outcome.js';

/** `POST /webhooks/<source>`: the raw bytes in, the service's answer out. */
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: SourceWebhooksService) {}

  @Post('github')
  async github(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookBody> {
    return reply(
      res,
      await countedWebhook('github', () => this.webhooks.github(rawBodyOf(req), req.headers)),
    );
  }

  @Post('slack')
  async slack(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookBody> {
    return reply(
      res,
      await countedWebhook('slack', () => this.webhooks.slack(rawBodyOf(req), req.headers)),
    );
  }

  @Post('linear')
  async linear(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WebhookBody> {
    return reply(
      res,
      await countedWebhook('linear', () => this.webhooks.linear(rawBodyOf(req), req.headers)),
    );
  }

  @Post('jira')
  async jira(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<WebhookBody> {
    return reply(
      res,
      await countedWebhook('jira', () => this.webhooks.jira(rawBodyOf(req), req.headers)),
    );
  }
}
