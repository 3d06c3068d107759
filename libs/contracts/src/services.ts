import type { Consumable } from './define-family.js';

/** Caravel's services: what a durable consumer is named after, beside the message it takes. */
export const SERVICE_NAMES = [
  'ingress',
  'dispatch',
  'agent-runner',
  'sandbox-broker',
  'dashboard',
  'reviewer',
  'analyzer',
] as const;

export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * The durable consumer through which `service` takes `definition`: `<service>-<consumerName>`,
 * e.g. `dispatch-run-started`. The replicas of a service share it; two services each get their
 * own. Nobody types a durable name: renaming one starts a new consumer on the server (see
 * docs/messaging.md, "Durable names").
 */
export function durableName(
  service: ServiceName,
  definition: Pick<Consumable, 'consumerName'>,
): string {
  return `${service}-${definition.consumerName}`;
}
