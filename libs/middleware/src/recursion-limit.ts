import type { AgentMiddleware } from 'langchain';
import { requirePositiveInteger } from './validate-options.js';

type NodeHook = 'beforeAgent' | 'beforeModel' | 'afterModel' | 'afterAgent';

/**
 * The LangGraph `recursionLimit` a run needs so that the model-call limit, not the graph's step
 * limit, is what ends a long run. Every hook of every middleware is a graph node, so one model
 * turn costs its before/after-model nodes plus the model and tools nodes; the default limit of 25
 * would stop an eleven-unit stack after two or three turns with a GraphRecursionError.
 */
export function graphRecursionLimitFor(
  stack: readonly AgentMiddleware[],
  modelCallLimit: number,
): number {
  requirePositiveInteger('model call limit', modelCallLimit);
  const count = (hook: NodeHook): number => stack.filter((m) => m[hook] !== undefined).length;
  const perTurn = count('beforeModel') + 1 + count('afterModel') + 1;
  // One more turn than the limit: the call-limit check that ends the run is itself a step.
  return count('beforeAgent') + count('afterAgent') + perTurn * (modelCallLimit + 1) + 1;
}
