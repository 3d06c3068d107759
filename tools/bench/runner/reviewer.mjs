// The reviewer's agent for the runner bench: built as a review run builds it (its middleware,
// its tools, no checkpointer: a review is re-run, not resumed), on the same zero-latency scripted
// model as the coding agents, with a ledger that is always empty and a publish that posts nothing.
import { CannedChatModel } from '@caravel/agent/langchain';
import { createAgent } from 'langchain';
import { buildReviewerAgent } from '../../../apps/reviewer/dist/agent/reviewer-agent.js';
import { bareTools } from './agents.mjs';

/** `steps` tool calls (`steps - 1` of `calls`, then `last`), then a closing answer. */
function script(steps, calls, last) {
  const responses = [];
  for (let i = 1; i <= steps; i += 1) {
    const name = i === steps ? last : calls;
    responses.push({ origin: `bench:${i}`, content: '', toolCalls: [{ name, args: {} }] });
  }
  responses.push({ origin: 'bench:end', content: 'Reviewed.', toolCalls: [] });
  return responses;
}

const noPublish = {
  posted: false,
  reviewId: null,
  skipReason: 'no_change',
  event: 'COMMENT',
  verdictReason: 'verdict_not_requested',
  surfaced: [],
  belowThreshold: 0,
  overCap: 0,
  unresolvable: [],
  summaryOnly: false,
  dismissedApprovals: [],
  threads: [],
  recognised: [],
};

function context(published) {
  return {
    threadId: 'bench',
    pullRequest: { owner: 'acme', repo: 'widgets', number: 1 },
    prepared: {},
    findings: { list: async () => [] },
    publish: async () => {
      published.count += 1;
      return noPublish;
    },
    threads: { close: async () => undefined },
    github: { reply: async () => undefined },
    now: () => new Date(),
  };
}

/** One review run: `steps - 1` list_findings and a publish_review; its per-run costs. */
export async function reviewerRun(steps, fail) {
  const published = { count: 0 };
  const model = new CannedChatModel({
    responses: script(steps, 'list_findings', 'publish_review'),
    file: 'bench',
    kind: 'scripted',
  });
  const reviewer = buildReviewerAgent({
    model,
    context: context(published),
    workspace: null,
    events: { emit: () => undefined },
    modelCallLimit: steps + 5,
  });
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const messages = await reviewer.run('review it');
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const results = messages.filter((m) => m.getType() === 'tool');
  if (model.calls.length !== steps + 1 || results.length !== steps || published.count !== 1)
    fail(
      `reviewer: ${model.calls.length} model calls, ${results.length} tool results and ` +
        `${published.count} publishes, expected ${steps + 1}, ${steps} and 1`,
    );
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** The floor for it: LangGraph's agent with two trivial tools, invoked with no checkpointer. */
export async function bareInvokeRun(steps, fail) {
  const model = new CannedChatModel({
    responses: script(steps, 'no_op', 'no_op'),
    file: 'bench',
    kind: 'scripted',
  });
  const agent = createAgent({ model, tools: bareTools() });
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const state = await agent.invoke(
    { messages: [{ role: 'user', content: 'go' }] },
    { recursionLimit: steps * 2 + 10 },
  );
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const results = state.messages.filter((m) => m.getType() === 'tool');
  if (model.calls.length !== steps + 1 || results.length !== steps)
    fail(`bare: ${model.calls.length} model calls and ${results.length} tool results`);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}
