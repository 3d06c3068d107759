import { describe } from '@jest/globals';
import { BehaviourContext } from './bus-behaviour-context.js';
import { describeDeliveryBehaviour } from './bus-behaviour-delivery.js';
import { describeOrderingBehaviour } from './bus-behaviour-ordering.js';
import { describeOutageBehaviour } from './bus-behaviour-outage.js';
import { describeReplayAndLeaseBehaviour } from './bus-behaviour-replay-lease.js';
import { describeRequestReplyBehaviour } from './bus-behaviour-request-reply.js';
import { describeSettlementBehaviour } from './bus-behaviour-settlement.js';
import type { BusHarnessFactory } from './bus-harness.js';

/**
 * The behaviour every {@link Bus} adapter must show, as one Jest suite. An adapter's medium test
 * calls it with a harness factory; the harness gives each run its own namespace, so the suite
 * may run beside other test files on the same NATS or database.
 *
 * Each behaviour uses its own test-only message type, so consumers never see another test's
 * messages even though the streams are shared within a run.
 */
export function describeBusBehaviour(factory: BusHarnessFactory, name = 'bus behaviour'): void {
  describe(name, () => {
    const ctx = new BehaviourContext(factory);
    ctx.install();
    describeDeliveryBehaviour(ctx);
    describeSettlementBehaviour(ctx);
    describeOrderingBehaviour(ctx);
    describeOutageBehaviour(ctx);
    describeRequestReplyBehaviour(ctx);
    describeReplayAndLeaseBehaviour(ctx);
  });
}
