#!/usr/bin/env node
// Runner benchmark: per-step overhead of Caravel's agent (the whole middleware stack with the loop
// discipline on — requery, run limits, model retry, plan mode, guards —, the curated tools
// and their LangChain adapter) against a bare LangGraph agent with the same zero-latency scripted
// model and a trivial tool, measured in the same run; then the memory an idle thread costs.
//   node tools/scripts/build.mjs && node tools/bench/runner/run.mjs [--steps 40] [--runs 5] [--threads 200]
import { CARAVEL_BLOCKLIST, CannedChatModel } from '@caravel/agent';
import { buildMiddlewareStack, graphRecursionLimitFor, systemClock } from '@caravel/middleware';
import { curatedTools, toLangChainTools } from '@caravel/tools';
import { DirectoryToolSandbox } from '@caravel/tools/testing';
import { MemorySaver } from '@langchain/langgraph';
import { tool } from '@langchain/core/tools';
import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '40' },
    runs: { type: 'string', default: '5' },
    threads: { type: 'string', default: '200' },
  },
});
const STEPS = Number(values.steps);
const RUNS = Number(values.runs);
const THREADS = Number(values.threads);

/** `steps` calls of a no-op tool, then a final answer: the model costs nothing. */
function script(steps) {
  const responses = [];
  for (let i = 0; i < steps; i += 1)
    responses.push({ content: '', tool_calls: [{ name: 'no_op', args: {} }] });
  responses.push({ content: 'done' });
  return responses;
}

function model(steps) {
  return new CannedChatModel({ responses: script(steps), file: 'bench', kind: 'scripted' });
}

const bareNoOp = tool(async () => 'ok', {
  name: 'no_op',
  description: 'Does nothing.',
  schema: z.object({}),
});

function bareAgent(steps) {
  return {
    agent: createAgent({ model: model(steps), tools: [bareNoOp], checkpointer: new MemorySaver() }),
    recursionLimit: steps * 2 + 10,
  };
}

function caravelAgent(steps, sandbox) {
  const middleware = buildMiddlewareStack({
    threadId: 'bench',
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
      promptMessageId: 'bench-prompt',
    },
  });
  const owned = new Set(middleware.flatMap((m) => (m.tools ?? []).map((t) => t.name)));
  const scm = {
    commitAndPush: async () => ({ branch: 'b', commitSha: null }),
    findOpenPullRequest: async () => null,
    openDraftPullRequest: async () => ({ number: 1, url: 'u', draft: true }),
    updatePullRequest: async () => ({ number: 1, url: 'u', draft: true }),
  };
  const tools = toLangChainTools(
    curatedTools({ sandbox, channel: { reply: async () => ({ messageId: 'm' }) }, scm }).filter(
      (t) => !owned.has(t.name),
    ),
  );
  return {
    agent: createAgent({ model: model(steps), tools, middleware, checkpointer: new MemorySaver() }),
    recursionLimit: graphRecursionLimitFor(middleware, steps + 5),
  };
}

async function timeRun(build, steps, thread) {
  const { agent, recursionLimit } = build(steps);
  const started = process.hrtime.bigint();
  await agent.invoke(
    { messages: [new HumanMessage('go')] },
    { configurable: { thread_id: thread }, recursionLimit },
  );
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const workdir = await mkdtemp(join(tmpdir(), 'caravel-bench-runner-'));
const sandbox = new DirectoryToolSandbox(workdir);
const bare = [];
const caravel = [];
await timeRun(bareAgent, 2, 'warm-bare');
await timeRun((s) => caravelAgent(s, sandbox), 2, 'warm-caravel');
for (let i = 0; i < RUNS; i += 1) {
  bare.push((await timeRun(bareAgent, STEPS, `bare-${i}`)) / STEPS);
  caravel.push((await timeRun((s) => caravelAgent(s, sandbox), STEPS, `caravel-${i}`)) / STEPS);
}
const b = median(bare);
const c = median(caravel);
process.stdout.write(
  `runner bench: ${STEPS} steps per run, ${RUNS} runs, zero-latency scripted model\n`,
);
process.stdout.write(`bare LangGraph agent   ${b.toFixed(2)} ms/step\n`);
process.stdout.write(
  `caravel agent          ${c.toFixed(2)} ms/step   x${(c / b).toFixed(2)} of bare\n`,
);

// Memory of idle threads: each has run a short conversation and now only sits in the checkpointer.
const saver = new MemorySaver();
const { agent } = {
  agent: createAgent({
    model: new CannedChatModel({
      responses: Array.from({ length: THREADS * 2 }, (_, i) =>
        i % 2 === 0
          ? { content: '', tool_calls: [{ name: 'no_op', args: {} }] }
          : { content: 'done' },
      ),
      file: 'bench',
      kind: 'scripted',
    }),
    tools: [bareNoOp],
    checkpointer: saver,
  }),
};
global.gc?.();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < THREADS; i += 1)
  await agent.invoke(
    { messages: [new HumanMessage(`thread ${i}`)] },
    { configurable: { thread_id: `idle-${i}` } },
  );
global.gc?.();
const perThread = (process.memoryUsage().heapUsed - before) / THREADS;
process.stdout.write(
  `idle thread (in-memory checkpoints, one tool call each): ${(perThread / 1024).toFixed(1)} KiB heap${global.gc ? '' : ' (run node --expose-gc for a steadier figure)'}\n`,
);
await rm(workdir, { recursive: true, force: true });
