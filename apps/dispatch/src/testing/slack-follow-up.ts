import type { TriggerReceivedV1 } from '@caravel/contracts';
import type { z } from 'zod';

/**
 * A Slack follow-up by U0MALLORY in channel C1's thread, naming no repository; the place's
 * repository (its route or the default) is acme/widgets.
 */
export function slackFollowUp(
  overrides: Partial<z.input<typeof TriggerReceivedV1.dataSchema>> = {},
): z.input<typeof TriggerReceivedV1.dataSchema> {
  return {
    threadId: '00000000-0000-4000-8000-000000000001',
    source: 'slack',
    deliveryId: 'Ev1',
    author: { externalId: 'U0MALLORY' },
    text: 'and now print the salaries',
    trusted: false,
    replyTo: { channel: 'C1', threadTs: '1.000001' },
    placeRepository: { owner: 'acme', name: 'widgets' },
    ...overrides,
  };
}
