import type { JetStreamAdmin } from '../harness/jetstream-admin.js';
import type { NatsServer } from '../harness/nats-server.js';
import type { Stage } from '../harness/stage.js';
import type { Ledger } from '../ledger.js';
import type { ChaosProfile } from '../profiles.js';

/** What a scenario works with. */
export interface ScenarioContext {
  readonly profile: ChaosProfile;
  readonly ledger: Ledger;
  readonly nats: NatsServer;
  readonly stage: Stage;
  readonly admin: JetStreamAdmin;
}

/** Resolves after `ms`: only to hold a fault for its planned duration, never to wait for work. */
export const hold = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records a finding for every service that no longer answers `/health/live`. */
export async function expectAllAlive(context: ScenarioContext, scenario: string): Promise<void> {
  const down = await context.stage.platform.unresponsive();
  if (down.length > 0) {
    context.ledger.finding(scenario, `service(s) crashed or hung: ${down.join(', ')}`);
  }
}
