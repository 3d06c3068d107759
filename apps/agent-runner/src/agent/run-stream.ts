import { LazyImport } from '@caravel/agent';
import { CARAVEL_NAMESPACE, uuidV5 } from '@caravel/contracts';
import type { RunExitStatus } from '@caravel/middleware';
import { queuedIdOf } from '@caravel/middleware/queued-message';
import type { BaseMessage } from '@langchain/core/messages';
import type { RunAgent } from './run-agent.js';
import type { StepRecorder } from './step-recorder.js';

/**
 * The messages' side of the stream (LangChain's message classes), imported when a run streams so
 * that this module loads no LangChain at start. The agent kit has loaded it already when the run's
 * agent was built; it is imported here rather than through the kit's loader because the kit
 * streams subagents through this module, and importing the loader would close an import cycle.
 */
const runMessages = new LazyImport(
  "the run's messages (LangChain)",
  () => import('./run-messages.js'),
);

interface NodeWrite {
  messages?: BaseMessage[];
  exitStatus?: RunExitStatus;
}

type StreamUpdate = Record<string, NodeWrite | NodeWrite[] | undefined>;

/**
 * LangGraph's `REMOVE_ALL_MESSAGES`: the id of the removal that clears the list. Spelled out so
 * that this module loads no LangChain before a run needs it (the spec holds it to LangGraph's).
 */
export const REMOVE_ALL_ID = '__remove_all__';

/** Whether a write replaces the whole message list (its first message removes all before it). */
function rewritesAll(write: NodeWrite): boolean {
  const first = write.messages?.[0];
  return first !== undefined && first.getType() === 'remove' && first.id === REMOVE_ALL_ID;
}

/**
 * A node's writes as the conversation reads after them: a write that rewrites the list whole
 * (the model node's, when messages the before-model hooks added must precede the answer
 * LangChain wrote first) supersedes the node's earlier messages, and brings its list without the
 * removal. The messages already recorded in it are recognised by their ids.
 */
function inEffect(writes: readonly NodeWrite[]): NodeWrite[] {
  const last = writes.findLastIndex(rewritesAll);
  if (last < 0) return [...writes];
  return writes.map((write, index) => {
    if (index > last) return write;
    const { messages, ...rest } = write;
    return index === last ? { ...rest, messages: messages!.slice(1) } : rest;
  });
}

/**
 * The writes of one `updates` chunk, node by node in order. A node that wrote a channel more than
 * once in its step (the model node does when the model hooks, folded into it, changed what the
 * model answered or added messages before it) comes as a list of its writes instead of one object.
 */
export function writesOf(update: StreamUpdate): NodeWrite[] {
  return Object.values(update).flatMap((node) =>
    node === undefined ? [] : inEffect(Array.isArray(node) ? node : [node]),
  );
}

interface StateSnapshot {
  values?: { messages?: BaseMessage[] };
}

export interface StreamOutcome {
  /** A middleware ended the run early (model-call limit, broken sandbox, no reply). */
  middlewareExit: RunExitStatus | undefined;
  /** The run had started before (a redelivered command): it continued from its checkpoint. */
  resumed: boolean;
}

/**
 * The follow-ups the thread's last checkpoint holds (their queued ids): what a run's claims are
 * settled by when it ends.
 */
export async function followUpsHeld(built: RunAgent, threadId: string): Promise<string[]> {
  const config = { configurable: { thread_id: threadId } };
  const snapshot = (await built.agent.graph.getState(config)) as StateSnapshot;
  return (snapshot.values?.messages ?? []).flatMap((message) => queuedIdOf(message.id) ?? []);
}

/** The id of a run's prompt message: how a checkpoint shows that this run already started. */
export function promptMessageId(runId: string): string {
  return uuidV5(`prompt:${runId}`, CARAVEL_NAMESPACE);
}

/**
 * Streams one run through the agent. A run whose prompt is already in the thread's checkpoint
 * (its command was redelivered after a runner died) continues from the last checkpoint instead of
 * starting over: completed model and tool calls are not repeated, and the steps recorded before
 * are re-published with their original ids (the bus deduplicates them).
 */
export async function streamRun(
  built: RunAgent,
  run: { threadId: string; runId: string; prompt: string },
  recorder: StepRecorder,
  heartbeat: () => Promise<void>,
  signal?: AbortSignal,
): Promise<StreamOutcome> {
  const config = { configurable: { thread_id: run.threadId } };
  const promptId = promptMessageId(run.runId);
  const { answersForInterruptedCalls, openingMessages, RunSpans } = await runMessages.get();
  const snapshot = (await built.agent.graph.getState(config)) as StateSnapshot;
  const history = snapshot.values?.messages ?? [];
  const promptIndex = history.findIndex((message) => message.id === promptId);
  const resumed = promptIndex >= 0;
  const closing = resumed ? [] : answersForInterruptedCalls(history);
  // The run's steps are what follows its prompt: earlier runs' messages come back in the agent's
  // whole-conversation updates, and the answers closing an interrupted run's calls are that run's.
  recorder.ignore([...history.slice(0, resumed ? promptIndex + 1 : history.length), ...closing]);
  if (resumed) for (const message of history.slice(promptIndex + 1)) await recorder.record(message);
  const input = resumed
    ? null
    : { messages: openingMessages(closing, promptId, built.openingMessage(run.prompt)) };
  const spans = RunSpans.forActiveRun();
  const stream = await built.agent.stream(input, {
    ...config,
    ...(signal ? { signal } : {}),
    ...(spans ? { callbacks: [spans] } : {}),
    // Each step is durable before the next one starts: a runner killed while a tool runs resumes
    // with the model's answer in hand, never asking again (the default writes asynchronously).
    durability: 'sync' as const,
    streamMode: 'updates',
    recursionLimit: built.recursionLimit,
  });
  let middlewareExit: RunExitStatus | undefined;
  for await (const update of stream as AsyncIterable<StreamUpdate>) {
    for (const write of writesOf(update)) {
      for (const message of write.messages ?? []) await recorder.record(message);
      middlewareExit ??= write.exitStatus;
    }
    await heartbeat();
  }
  await recorder.flush();
  return { middlewareExit, resumed };
}
