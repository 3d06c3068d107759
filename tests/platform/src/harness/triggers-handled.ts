import type { PlatformPair } from './platform-pairs.js';
import { until } from './scenario-run.js';

/**
 * Waits until dispatch has handled every trigger stored so far (its `dispatch-triggers` consumer
 * has nothing waiting and nothing in a handler): what a refusal that answers nobody leaves to see.
 */
export async function triggersHandled(pair: PlatformPair): Promise<void> {
  await until(async () => {
    const triggers = (await pair.bus.backlog()).find((b) => b.consumer === 'dispatch-triggers');
    return triggers && triggers.waiting === 0 && triggers.inHandlers === 0 ? true : undefined;
  }, "dispatch's trigger consumer to have handled every trigger");
}
