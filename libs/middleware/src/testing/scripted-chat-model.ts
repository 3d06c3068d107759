import { BaseChatModel, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { ToolCall } from '@langchain/core/messages/tool';

/** One scripted turn: a reply, or an error to throw, or a call that never settles. */
export type ScriptedTurn = AIMessage | Error | 'hang';

/**
 * A chat model for tests that answers from a queue of scripted turns and records what it was sent.
 * An exhausted script is a test bug, so it throws instead of inventing a reply.
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];
  readonly boundToolNames: string[][] = [];
  private readonly turns: ScriptedTurn[];
  private readonly label: string;
  private onCall: (() => void) | undefined;

  constructor(turns: ScriptedTurn[], label = 'scripted') {
    super({});
    this.turns = [...turns];
    this.label = label;
  }

  _llmType(): string {
    return this.label;
  }

  /** Resolves when the model is next called (useful to fire a fake timer mid-call). */
  nextCall(): Promise<void> {
    return new Promise((resolve) => {
      this.onCall = resolve;
    });
  }

  override bindTools(tools: BindToolsInput[]): Runnable<BaseLanguageModelInput, AIMessageChunk> {
    this.boundToolNames.push(tools.map((t) => (t as { name?: string }).name ?? '?'));
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const turn = this.turns.shift();
    this.onCall?.();
    if (turn === undefined) throw new Error(`${this.label}: script exhausted`);
    if (turn === 'hang') return new Promise<ChatResult>(() => undefined);
    if (turn instanceof Error) throw turn;
    return { generations: [{ text: turn.text, message: turn }] };
  }
}

let counter = 0;

/** An AI turn that calls the given tools (ids are generated when not given). */
export function toolTurn(
  calls: { name: string; args: Record<string, unknown>; id?: string }[],
  content = '',
): AIMessage {
  const toolCalls: ToolCall[] = calls.map((call) => ({
    name: call.name,
    args: call.args,
    id: call.id ?? `call-${++counter}`,
    type: 'tool_call',
  }));
  return new AIMessage({ content, tool_calls: toolCalls });
}

/** An AI turn with plain text and no tool call. */
export function textTurn(text: string): AIMessage {
  return new AIMessage({ content: text });
}
