import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import type { RunPreparationPort } from './ports.js';
import { prepareAgentRunMiddleware } from './prepare-agent-run.middleware.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn } from './testing/scripted-chat-model.js';

class ScriptedPreparation implements RunPreparationPort {
  readonly snapshots: string[] = [];
  readonly notices: string[] = [];
  constructor(private readonly sandboxError?: Error) {}
  async ensureSandbox(): Promise<void> {
    if (this.sandboxError) throw this.sandboxError;
  }
  async snapshotTurn(messageId: string): Promise<void> {
    this.snapshots.push(messageId);
  }
  async notifyUser(text: string): Promise<void> {
    this.notices.push(text);
  }
}

const unreachable = (e: unknown) => e instanceof AppError && e.code === 'DEPENDENCY_UNAVAILABLE';

function agentWith(preparation: RunPreparationPort, model: ScriptedChatModel) {
  const events = new RecordingEvents();
  const agent = createAgent({
    model,
    tools: [],
    middleware: [
      prepareAgentRunMiddleware({ preparation, isSandboxUnreachable: unreachable, events }),
    ],
    checkpointer: new MemorySaver(),
  });
  const invoke = (id: string, text: string) =>
    agent.invoke(
      { messages: [{ role: 'user', content: text, id }] },
      { configurable: { thread_id: 't-1' } },
    ) as Promise<{ exitStatus?: string; messages: unknown[] }>;
  return { invoke, events };
}

describe('prepareAgentRunMiddleware', () => {
  it('tells the user once and stops when the sandbox is unreachable, without calling the model', async () => {
    const preparation = new ScriptedPreparation(
      new AppError('DEPENDENCY_UNAVAILABLE', 'sandbox sb-1 is gone', {
        details: { reason: 'sandbox_unreachable', sandboxId: 'sb-1' },
      }),
    );
    const model = new ScriptedChatModel([textTurn('never')]);

    const out = await agentWith(preparation, model).invoke('m-1', 'fix it');

    expect(out.exitStatus).toBe('exit_environment_error');
    expect(model.calls).toHaveLength(0);
    expect(preparation.notices).toHaveLength(1);
    expect(preparation.notices[0]).toMatch(
      /^I stopped: this thread's sandbox \(sb-1\) cannot be reached; .* did not start over/,
    );
    expect(preparation.snapshots).toEqual([]);
  });

  it('fails the run on any other preparation error', async () => {
    const preparation = new ScriptedPreparation(new Error('bug'));

    await expect(
      agentWith(preparation, new ScriptedChatModel([textTurn('x')])).invoke('m-1', 'go'),
    ).rejects.toThrow('bug');
    expect(preparation.notices).toEqual([]);
  });

  it('snapshots the turn checkpoint once per user message', async () => {
    const preparation = new ScriptedPreparation();
    const { invoke } = agentWith(
      preparation,
      new ScriptedChatModel([textTurn('a'), textTurn('b')]),
    );

    await invoke('m-1', 'first');
    await invoke('m-2', 'second');

    expect(preparation.snapshots).toEqual(['m-1', 'm-2']);
  });
});
