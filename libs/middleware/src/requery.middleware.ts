import {
  LoopExitError,
  queryWithRequery,
  type ActionValidatorConfig,
  type FailedAttempt,
  type ParsedOutput,
} from '@caravel/agent';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { Command } from '@langchain/langgraph';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { errorToolMessage } from './tool-messages.js';
import type { MiddlewareEventSink } from './ports.js';
import { checkToolCall, type ToolCallCheck } from './tool-call-check.js';

/** Parameters of {@link requeryMiddleware}. */
export interface RequeryOptions {
  /** Blocklist, multi-line guard and `bash -n` for the shell tool's commands. */
  validator: ActionValidatorConfig;
  /** The tool whose `command` argument is a shell command (default `execute`). */
  shellToolName?: string;
  /** Counted failures that end the run with `exit_format` (default 3, SWE-agent's). */
  maxRequeries?: number;
  events: MiddlewareEventSink;
}

/** What the model said, as one reply of the requery loop. */
type Reply = AIMessage;

function textOf(message: AIMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (typeof part === 'object' && 'text' in part ? String(part.text) : ''))
    .join('');
}

/** One call of a reply; a call whose arguments did not parse carries the parse error. */
interface ReplyCall {
  call: ToolCall;
  parseError?: string;
}

/** Every call of a reply, the unparsable ones included (as calls without arguments). */
function replyCalls(reply: Reply): ReplyCall[] {
  const invalid = (reply.invalid_tool_calls ?? []).map((call, index): ReplyCall => ({
    call: {
      name: call.name ?? 'unknown_tool',
      id: call.id ?? `invalid-${index}`,
      type: 'tool_call',
      args: {},
    },
    parseError: call.error ?? 'parse error',
  }));
  return [...(reply.tool_calls ?? []).map((call) => ({ call })), ...invalid];
}

function callsOf(reply: Reply): ToolCall[] {
  return replyCalls(reply).map(({ call }) => call);
}

/**
 * The failed answer and the error, as the model reads them on the requery: its own tool calls
 * answered by error tool messages (every provider requires an answer to each call). The first
 * rejected call carries the error; the others say they were not run.
 */
function failedTurn(reply: Reply, errorMessage: string, rejectedId: string | null): BaseMessage[] {
  const calls = callsOf(reply);
  if (calls.length === 0) return [reply, new HumanMessage({ content: errorMessage })];
  const answers = calls.map((call) =>
    errorToolMessage(
      call,
      call.id === rejectedId || rejectedId === null
        ? errorMessage
        : 'Not run: another call in the same answer was rejected. Send your calls again.',
    ),
  );
  return [reply, ...answers];
}

function describeAttempt(attempt: FailedAttempt<BaseMessage, Reply>): {
  content: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
} {
  return {
    content: textOf(attempt.reply),
    toolCalls: callsOf(attempt.reply).map(({ name, args }) => ({ name, args })),
  };
}

/**
 * SWE-agent's requery discipline for a tool-calling agent: an answer that cannot be executed (a
 * call to an unknown tool, arguments that do not parse or miss a required field, a blocked
 * command, an unterminated multi-line command, a bash syntax error) is sent back to the model
 * with the reason, at most `maxRequeries` counted failures per step. The failed answers never
 * enter the conversation state (a recovered model leaves no trace of its mistakes); each is
 * reported through the event sink so the trajectory records it. A step that runs out of
 * requeries ends the run with `exit_format` (the current diff is then autosubmitted).
 */
export function requeryMiddleware(options: RequeryOptions): AgentMiddleware {
  const shellTool = options.shellToolName ?? 'execute';
  const checker = options.validator.syntaxChecker;
  // An answer without a shell command has nothing for `bash -n` (and costs no sandbox call).
  const validator: ActionValidatorConfig = checker
    ? {
        ...options.validator,
        syntaxChecker: {
          check: (command) =>
            command.trim() === '' ? Promise.resolve({ ok: true }) : checker.check(command),
        },
      }
    : options.validator;
  return createMiddleware({
    name: 'requery',
    wrapModelCall: async (request, handler) => {
      const tools = new Map(request.tools.map((tool) => [String(tool.name), tool] as const));
      let rejected: ToolCallCheck | null = null;
      const outcome = await queryWithRequery<BaseMessage, Reply>(request.messages, {
        query: async (messages) => {
          const answer = (await handler({ ...request, messages: [...messages] })) as
            AIMessage | Command;
          if (!AIMessage.isInstance(answer)) {
            throw new LoopExitError('exit_error', 'a model call answered with a graph command');
          }
          return answer;
        },
        parse: (reply): ParsedOutput => {
          const checks = replyCalls(reply).map((entry) => checkToolCall(entry, tools, shellTool));
          const invalid = checks.find((check) => !check.ok);
          const commands = checks.filter((check) => check.ok && check.command !== undefined);
          // A command failure is pinned on its call when it is the answer's only command.
          rejected = invalid ?? (commands.length === 1 ? (commands[0] ?? null) : null);
          if (invalid && !invalid.ok) return invalid.parsed;
          const action = commands
            .map((check) => (check.ok ? (check.command ?? '') : ''))
            .join('\n');
          return { ok: true, thought: textOf(reply), action };
        },
        failedTurn: (reply, message) => failedTurn(reply, message, rejected?.callId ?? null),
        validator,
        ...(options.maxRequeries !== undefined ? { maxRequeries: options.maxRequeries } : {}),
      });
      outcome.failedAttempts.forEach((attempt, index) =>
        options.events.emit({
          type: 'requery',
          attempt: index + 1,
          failure: attempt.failure.kind,
          message: attempt.requeryMessage ?? 'resampled with the same history',
          reply: describeAttempt(attempt),
        }),
      );
      if (outcome.kind === 'exit_format') {
        const last = outcome.failedAttempts.at(-1);
        throw new LoopExitError(
          'exit_format',
          `the model gave ${outcome.failedAttempts.length} unusable answers in a row` +
            (last ? ` (last: ${last.failure.kind})` : ''),
        );
      }
      return outcome.reply;
    },
  });
}
