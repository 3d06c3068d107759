import { describe, expect, it } from '@jest/globals';
import { BodyBudget, DirectRoutes } from '@caravel/platform';
import { strictMock } from '@caravel/testing/doubles';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { SourceWebhooksService } from '../services/source-webhooks.service.js';
import { WebhookRoutes } from './webhook-routes.js';

/** A GitHub delivery whose body arrives as the test writes it. */
function delivery(): PassThrough & IncomingMessage {
  const request = new PassThrough() as PassThrough & IncomingMessage;
  request.method = 'POST';
  request.url = '/webhooks/github';
  request.headers = {};
  return request;
}

/** One turn of the event loop: the chunks written so far reach the reader. */
const delivered = () => new Promise((resolve) => setImmediate(resolve));

describe('WebhookRoutes', () => {
  it('refuses a delivery (429) while the unverified bodies being read fill their budget', async () => {
    const routes = new DirectRoutes();
    const budget = new BodyBudget(10);
    const webhooks = strictMock<SourceWebhooksService>(
      { github: (raw: Buffer) => Promise.resolve({ status: 202, body: { bytes: raw.length } }) },
      'webhooks',
    );
    new WebhookRoutes(routes, webhooks, budget);
    const route = routes.match('POST', '/webhooks/github');
    if (!route) throw new Error('no GitHub route');

    const slow = delivery();
    const slowAnswer = route.handle(slow);
    slow.write(Buffer.alloc(8));
    await delivered();
    const flood = delivery();
    const floodAnswer = route.handle(flood);
    flood.write(Buffer.alloc(8));
    await expect(floodAnswer).rejects.toMatchObject({ code: 'RATE_LIMITED' });

    slow.end();
    expect(await slowAnswer).toMatchObject({ status: 202, body: { bytes: 8 } });
    expect(budget.heldBytes).toBe(0);
  });
});
