import {
  AIMessage,
  RemoveMessage,
  type BaseMessage,
  type BaseMessageLike,
} from '@langchain/core/messages';
import {
  Command,
  getCurrentTaskInput,
  messagesStateReducer,
  REMOVE_ALL_MESSAGES,
} from '@langchain/langgraph';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';

/** The node hooks LangChain's `createAgent` turns into graph nodes, one per middleware. */
export type NodeHookName = 'beforeAgent' | 'beforeModel' | 'afterModel' | 'afterAgent';

type JumpTarget = 'model' | 'tools' | 'end';
type MessageLike = BaseMessage | BaseMessageLike;
type HookState = Record<string, unknown> & { messages: BaseMessage[] };
type HookResult =
  | (Record<string, unknown> & { jumpTo?: JumpTarget; messages?: MessageLike | MessageLike[] })
  | void;
type HookFunction = (state: HookState, runtime: unknown) => HookResult | Promise<HookResult>;
type Hook = HookFunction | { hook: HookFunction; canJumpTo?: JumpTarget[] };

/** One unit's hook, with the state keys that unit's node would have been given. */
interface BoundHook {
  readonly unit: string;
  readonly run: HookFunction;
  readonly canJumpTo: readonly JumpTarget[];
  readonly keys: readonly string[];
}

/** The name of the middleware that carries a folded stack's node hooks. */
export const FOLDED_HOOKS_NAME = 'folded-hooks';
/** The name of the middleware that runs a folded stack's model hooks in the model node. */
export const FOLDED_MODEL_HOOKS_NAME = 'folded-model-hooks';

/** LangChain runs these last-to-first: the way out of the onion. */
const OUTWARD: ReadonlySet<NodeHookName> = new Set(['afterModel', 'afterAgent']);

function schemaShape(unit: AgentMiddleware): Record<string, z.ZodType> {
  const schema: unknown = unit.stateSchema;
  if (schema === undefined) return {};
  if (schema instanceof z.ZodObject) return schema.shape;
  throw new Error(`foldHooks: middleware ${unit.name} has a state schema that is not a zod object`);
}

function bind(unit: AgentMiddleware, name: NodeHookName): BoundHook | undefined {
  const hook = unit[name] as Hook | undefined;
  if (hook === undefined) return undefined;
  const canJumpTo = typeof hook === 'function' ? [] : (hook.canJumpTo ?? []);
  // Only before-hooks route alike from every node; an after-hook's jump depends on its place.
  if (OUTWARD.has(name) && canJumpTo.length > 0)
    throw new Error(`foldHooks: ${unit.name}.${name} may jump, which a folded node cannot route`);
  return {
    unit: unit.name,
    run: typeof hook === 'function' ? hook : hook.hook,
    canJumpTo,
    keys: ['messages', 'structuredResponse', ...Object.keys(schemaShape(unit))],
  };
}

/** What a unit's own node would have read: the messages and its own state fields. */
function viewFor(state: HookState, keys: readonly string[]): HookState {
  const view: Record<string, unknown> = {};
  for (const key of keys) if (key in state) view[key] = state[key];
  return view as HookState;
}

/**
 * Runs `hooks` in order as their own nodes would have run, each seeing the state its predecessors
 * left (messages through LangGraph's messages reducer, other fields replaced), and returns their
 * combined update: the messages in the order they were returned, the last value of every other
 * field, and the first jump, after which no later hook runs (as the graph routes away at a jump).
 */
async function runHooksInOrder(
  hooks: readonly BoundHook[],
  state: HookState,
  runtime: unknown,
): Promise<HookResult> {
  let current: HookState = { ...state };
  const update: Record<string, unknown> = {};
  const messages: MessageLike[] = [];
  let changed = false;
  for (const hook of hooks) {
    const result = await hook.run(viewFor(current, hook.keys), runtime);
    if (result === undefined || result === null) continue;
    const { jumpTo, messages: added, ...fields } = result;
    if (jumpTo !== undefined && !hook.canJumpTo.includes(jumpTo))
      throw new Error(`Invalid jump target: ${jumpTo} from middleware ${hook.unit}`);
    changed = true;
    if (added !== undefined) {
      const list = (Array.isArray(added) ? added : [added]) as MessageLike[];
      // The reducer gives a message without an id its id in place, so the graph keeps that one.
      current = { ...current, messages: messagesStateReducer(current.messages, list) };
      messages.push(...list);
    }
    Object.assign(update, fields);
    current = { ...current, ...fields };
    if (jumpTo !== undefined)
      return { ...update, ...(messages.length > 0 ? { messages } : {}), jumpTo };
  }
  if (!changed) return undefined;
  return { ...update, ...(messages.length > 0 ? { messages } : {}) };
}

function withoutNodeHooks(unit: AgentMiddleware): AgentMiddleware {
  return {
    ...unit,
    beforeAgent: undefined,
    beforeModel: undefined,
    afterModel: undefined,
    afterAgent: undefined,
  };
}

function foldedHook(hooks: readonly BoundHook[]) {
  const canJumpTo = [...new Set(hooks.flatMap((h) => h.canJumpTo))];
  const hook: HookFunction = (state, runtime) => runHooksInOrder(hooks, state, runtime);
  return canJumpTo.length > 0 ? { hook, canJumpTo } : hook;
}

/** What `createAgent` names an unnamed agent's answers, after the wrappers have returned. */
const MODEL_NODE_NAME = 'model';

type WrapModelCall = NonNullable<AgentMiddleware['wrapModelCall']>;
type ModelRequest = Parameters<WrapModelCall>[0];

/**
 * The model node's whole input state, its fields parsed by `partial` (built once), as LangChain
 * gives a wrapper whose middleware has a state schema — which it does by building that schema's
 * partial copy anew at every model call (a zod object compiled per call, ~1 ms of a step).
 */
function stateFor(request: ModelRequest, partial: z.ZodObject): HookState {
  const input = getCurrentTaskInput<HookState>();
  return { ...partial.parse(input), messages: request.state.messages };
}

/** A hook result's messages as a list (a hook may return one message or several). */
function messageList(result: HookResult): MessageLike[] {
  const added = result?.messages;
  if (added === undefined) return [];
  return (Array.isArray(added) ? added : [added]) as MessageLike[];
}

/** The messages an update with `added` leaves, as LangGraph's messages reducer would. */
function withMessages(messages: BaseMessage[], added: readonly MessageLike[]): BaseMessage[] {
  return added.length === 0 ? messages : messagesStateReducer(messages, [...added]);
}

/** A hook result's fields other than its messages and its jump. */
function fieldsOf(result: HookResult): Record<string, unknown> {
  if (!result) return {};
  const { jumpTo: _jump, messages: _messages, ...fields } = result;
  return fields;
}

/**
 * The model node's hooks, as the outermost model-call wrapper: the before-model hooks run first
 * (a jump ends the step there, without a model call, as the graph routed away); the model is
 * called on the messages they left; the after-model hooks run on its answer once every other
 * wrapper has returned, as their nodes ran after the model node. Everything is written with the
 * answer in one superstep, so a step checkpoints twice (model, tools) as a bare agent's does.
 *
 * LangChain writes the answer first. When the before-hooks added messages (a queued follow-up, a
 * summary), they must come before it: the update then rewrites the list whole (rare; a drained
 * queue keeps a message until a checkpoint holds it, so a crash before this write loses none).
 * Otherwise only the after-hooks' messages are written after the answer, replacing it in place
 * when they repair it.
 */
function hooksInModelNode(
  before: readonly BoundHook[],
  after: readonly BoundHook[],
  partial: z.ZodObject,
): WrapModelCall {
  return async (request, handler) => {
    const state = stateFor(request, partial);
    const prepared =
      before.length > 0 ? await runHooksInOrder(before, state, request.runtime) : undefined;
    const added = messageList(prepared);
    if (prepared?.jumpTo !== undefined)
      return new Command({ update: { ...fieldsOf(prepared), messages: added } });
    const ready = {
      ...state,
      ...fieldsOf(prepared),
      messages: withMessages(state.messages, added),
    };
    const answer = await handler(
      added.length === 0
        ? request
        : { ...request, messages: withMessages(request.messages, added) },
    );
    if (!AIMessage.isInstance(answer)) return answer;
    // The hooks' nodes saw the answer named, and a hook's copy of it keeps the name.
    answer.name = MODEL_NODE_NAME;
    answer.lc_kwargs.name = MODEL_NODE_NAME;
    const answered = { ...ready, messages: messagesStateReducer(ready.messages, [answer]) };
    const finished =
      after.length > 0 ? await runHooksInOrder(after, answered, request.runtime) : undefined;
    const fields = { ...fieldsOf(prepared), ...fieldsOf(finished) };
    if (added.length > 0) {
      const messages = withMessages(answered.messages, messageList(finished));
      return new Command({
        update: {
          ...fields,
          messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages],
        },
      });
    }
    if (!prepared && !finished) return answer;
    const repaired = messageList(finished);
    return new Command({
      update: { ...fields, ...(repaired.length > 0 ? { messages: repaired } : {}) },
    });
  };
}

type WrapToolCall = NonNullable<AgentMiddleware['wrapToolCall']>;
type ToolCallRequest = Parameters<WrapToolCall>[0];

/**
 * A unit whose model-call wrapper reads its state fields, without its state schema (the folded
 * middleware declares the same fields): its wrapper gets them from the node's input, parsed by
 * a partial schema built once instead of once per call. Its tool-call wrapper, which LangChain
 * gives only the messages of a middleware with no schema, gets them from the tools node's input
 * (the whole state the router sent) parsed by the unit's own schema, as LangChain parses it.
 */
function withStateReadOnce(unit: AgentMiddleware): AgentMiddleware {
  const wrap = unit.wrapModelCall;
  const shape = schemaShape(unit);
  if (wrap === undefined || Object.keys(shape).length === 0) return unit;
  const partial = z.object(shape).partial();
  const wrapModelCall: WrapModelCall = (request, handler) =>
    wrap({ ...request, state: stateFor(request, partial) } as ModelRequest, handler);
  const wrapTool = unit.wrapToolCall;
  if (wrapTool === undefined) return { ...unit, stateSchema: undefined, wrapModelCall };
  const whole = z.object(shape);
  const wrapToolCall: WrapToolCall = (request, handler) => {
    const fields = whole.parse(getCurrentTaskInput<HookState>());
    const state = { messages: request.state.messages, ...fields };
    return wrapTool({ ...request, state } as ToolCallRequest, handler);
  };
  return { ...unit, stateSchema: undefined, wrapModelCall, wrapToolCall };
}

/**
 * The same stack in four graph nodes instead of one per hook. LangChain's `createAgent` makes
 * every `beforeModel` / `afterModel` hook of every middleware its own superstep, each writing a
 * full checkpoint: the whole stack made nine checkpointed supersteps of a step. Folded, a step is
 * two, as a bare agent's: the model (its before- and after-model hooks inside it) and the tools.
 *
 * Every unit keeps its place, name, state schema, tools and `wrapModelCall` / `wrapToolCall`; its
 * node hooks run, in LangChain's order (before-hooks first-to-last, after-hooks last-to-first),
 * in two middlewares placed first: {@link FOLDED_MODEL_HOOKS_NAME}, the outermost model-call
 * wrapper, runs the before- and after-model hooks around the call; {@link FOLDED_HOOKS_NAME}
 * declares every unit's state fields and runs the agent hooks. A unit's model-call wrapper that
 * reads its fields gets them as before, without LangChain re-building its schema at each call
 * (see `withStateReadOnce`). Each hook sees what its own node would have seen (the messages and
 * its own fields, as its predecessors left them); a jump from a before-hook stops the hooks after
 * it and the step, as the graph's router did. Before-model hooks may only jump to the end,
 * after-hooks not at all.
 */
export function foldHooks(stack: readonly AgentMiddleware[]): AgentMiddleware[] {
  for (const unit of stack)
    if (unit.contextSchema !== undefined)
      throw new Error(`foldHooks: middleware ${unit.name} has a context schema`);
  const shape = Object.assign({}, ...stack.map(schemaShape)) as Record<string, z.ZodType>;
  const folded: Record<string, unknown> = {
    name: FOLDED_HOOKS_NAME,
    stateSchema: z.object(shape),
  };
  const bound = (name: NodeHookName) =>
    (OUTWARD.has(name) ? [...stack].reverse() : stack).flatMap((unit) => bind(unit, name) ?? []);
  for (const name of ['beforeAgent', 'afterAgent'] as const) {
    const hooks = bound(name);
    if (hooks.length > 0) folded[name] = foldedHook(hooks);
  }
  const [before, after] = [bound('beforeModel'), bound('afterModel')];
  for (const hook of before)
    if (hook.canJumpTo.some((target) => target !== 'end'))
      throw new Error(
        `foldHooks: ${hook.unit}.beforeModel may jump to the model or the tools, which the model node cannot route`,
      );
  const modelHooks =
    before.length + after.length === 0
      ? []
      : [
          createMiddleware({
            name: FOLDED_MODEL_HOOKS_NAME,
            wrapModelCall: hooksInModelNode(before, after, z.object(shape).partial()),
          }),
        ];
  return [
    ...modelHooks,
    createMiddleware(folded as Parameters<typeof createMiddleware>[0]),
    ...stack.map((unit) => withStateReadOnce(withoutNodeHooks(unit))),
  ];
}
