import { DirectRoutes, readRequestBody, type DirectAnswer } from '@caravel/platform';
import { Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import {
  BODY_TOO_LARGE,
  MAX_WEBHOOK_BYTES,
  WebhookBodyBudget,
} from '../http/raw-body.middleware.js';
import { SourceWebhooksService } from '../services/source-webhooks.service.js';
import { countedWebhook } from './webhook-outcome.js';

/** The sources that post webhooks to `POST /webhooks/<source>`. */
const SOURCES = ['github', 'slack', 'linear', 'jira'] as const;

const TOO_LARGE: DirectAnswer = { ...BODY_TOO_LARGE, dropRequest: true };

/**
 * `POST /webhooks/<source>`: the raw bytes in, the service's answer out. Served as direct routes
 * (ahead of the framework's router: {@link DirectRoutes}), because every delivery a sender pushes
 * comes through here. A body over {@link MAX_WEBHOOK_BYTES} is answered 413 before the rest is read;
 * one the {@link WebhookBodyBudget} cannot hold while others are read, 429 (Retry-After) likewise.
 */
@Injectable()
export class WebhookRoutes {
  constructor(
    routes: DirectRoutes,
    webhooks: SourceWebhooksService,
    private readonly budget: WebhookBodyBudget,
  ) {
    for (const source of SOURCES) {
      routes.post(`/webhooks/${source}`, (request) =>
        this.serve(request, source, (raw) => webhooks[source](raw, request.headers)),
      );
    }
  }

  private async serve(
    request: IncomingMessage,
    source: string,
    handle: (rawBody: Buffer) => ReturnType<SourceWebhooksService['github']>,
  ): Promise<DirectAnswer> {
    const rawBody = await readRequestBody(request, MAX_WEBHOOK_BYTES, this.budget);
    if (!rawBody) return TOO_LARGE;
    return countedWebhook(source, () => handle(rawBody));
  }
}
