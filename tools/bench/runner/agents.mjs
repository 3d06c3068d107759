// The two agents the runner bench compares, on the same scripted model: a bare LangGraph ReAct
// agent (the floor) and Caravel's (the whole middleware stack with the loop discipline on, the
// curated tools through their LangChain adapter), both ending each run with a return-direct
// `submit`, as Caravel's runs do.
import { CARAVEL_BLOCKLIST } from '@caravel/agent';
import { CannedChatModel } from '@caravel/agent/langchain';
import {
  buildMiddlewareStack,
  foldHooks,
  graphRecursionLimitFor,
  systemClock,
} from '@caravel/middleware';
import { curatedTools, endsRun } from '@caravel/tools';
import { toLangChainTools } from '@caravel/tools/langchain';
import { DirectoryToolSandbox } from '@caravel/tools/testing';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';

/** The id of every run's prompt: the run's turns are the model's answers after it. */
export const PROMPT_ID = 'bench-prompt';

/**
 * `steps` tool calls: `steps - 1` calls of `no_op`, then `submit`, which ends the run. Written in
 * the shape `CannedChatModel` reads (`toolCalls`), so every call reaches its tool.
 */
export function script(steps) {
  const responses = [];
  for (let i = 1; i <= steps; i += 1) {
    const name = i === steps ? 'submit' : 'no_op';
    responses.push({ origin: `bench:${i}`, content: '', toolCalls: [{ name, args: {} }] });
  }
  return responses;
}

function model(steps) {
  return new CannedChatModel({ responses: script(steps), file: 'bench', kind: 'scripted' });
}

/** A sandbox whose working tree never changes: `submit` submits an empty diff without git. */
class CleanSandbox extends DirectoryToolSandbox {
  diff() {
    return Promise.resolve('');
  }
}

export function cleanSandbox(root) {
  return new CleanSandbox(root);
}

export function bareTools() {
  const noOp = tool(async () => 'ok', {
    name: 'no_op',
    description: 'Does nothing.',
    schema: z.object({}),
  });
  const submit = tool(async () => 'submitted', {
    name: 'submit',
    description: 'Ends the run.',
    schema: z.object({}),
  });
  submit.returnDirect = true;
  return [noOp, submit];
}

/** The floor: LangGraph's ReAct agent, no middleware, two trivial tools. */
export function bareAgent({ steps, checkpointer }) {
  const scripted = model(steps);
  return {
    model: scripted,
    agent: createAgent({ model: scripted, tools: bareTools(), checkpointer }),
    recursionLimit: steps * 2 + 10,
  };
}

function stack(steps, runId) {
  return buildMiddlewareStack({
    threadId: 'bench',
    run: { runId, promptMessageId: PROMPT_ID },
    ports: {
      agentsFiles: { findAgentsFiles: async () => [] },
      queue: { drain: async () => [] },
      notifier: { notifyStepLimit: async () => undefined },
      events: { emit: () => undefined },
      clock: systemClock,
    },
    modelCallLimit: steps + 5,
    stepLimitNoticeAt: 1,
    replyToolName: 'reply_to_user',
    isTrustedAuthor: () => true,
    circuitBreakerThreshold: 3,
    primaryModel: { provider: 'scripted', modelId: 'bench' },
    modelCallTimeoutMs: 60_000,
    requery: { validator: { blocklist: CARAVEL_BLOCKLIST, multilineCommands: [] } },
    runLimits: {
      limits: { maxCostUsd: 3, maxWallTimeMs: 7_200_000, maxInputTokens: 200_000 },
      execution: { maxTotalExecutionSeconds: 1800, maxConsecutiveTimeouts: 3 },
      stuckThreshold: 0,
      pricing: { estimateCallUsd: () => 0, costUsd: () => 0 },
      promptMessageId: PROMPT_ID,
    },
  });
}

const scm = {
  commitAndPush: async () => ({ branch: 'b', commitSha: null }),
  findOpenPullRequest: async () => null,
  openPullRequest: async () => ({ number: 1, url: 'u', draft: true }),
  updatePullRequest: async () => ({ number: 1, url: 'u', draft: true }),
};

/**
 * Caravel's agent as the runner's factory builds it: the middleware's node hooks folded, the
 * curated tools (their own `no_op` and `submit` included) less the ones a middleware owns,
 * return-direct on the tools that end a run. `fold: false` gives each hook its own node, as
 * before the fold, for comparison.
 */
export function caravelAgent({ steps, checkpointer, sandbox, runId, fold = true }) {
  const scripted = model(steps);
  const units = stack(steps, runId);
  const middleware = fold ? foldHooks(units) : units;
  const owned = new Set(middleware.flatMap((m) => (m.tools ?? []).map((t) => t.name)));
  const caravelTools = curatedTools({
    sandbox,
    channel: { reply: async () => ({ messageId: 'm' }) },
    scm,
  }).filter((t) => !owned.has(t.name));
  const tools = toLangChainTools(caravelTools);
  for (const t of tools) if (endsRun(t.tool)) t.returnDirect = true;
  return {
    model: scripted,
    agent: createAgent({ model: scripted, tools, middleware, checkpointer }),
    recursionLimit: graphRecursionLimitFor(middleware, steps + 5),
  };
}
