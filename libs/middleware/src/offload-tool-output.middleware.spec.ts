import { describe, expect, it } from '@jest/globals';
import type { BaseMessage } from '@langchain/core/messages';
import { tool } from 'langchain';
import { z } from 'zod';
import {
  offloadToolOutputMiddleware,
  type ToolOutputStore,
} from './offload-tool-output.middleware.js';
import { contextLimit, exitOf } from './testing/loop-exits.js';
import { runAgent, toolMessages } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

/** About 60,000 characters of test log (15,000 tokens by the estimate), the failure at its end. */
const LOG = `${'PASS src/ok.spec.ts\n'.repeat(2_999)}FAIL src/parser.spec.ts`;
const WINDOW = 8_000;
const MAX_CHARS = 20_000;

const testRunner = (name: string) =>
  tool(async () => LOG, { name, description: `${name} (test)`, schema: z.object({}) });

class MemoryStore implements ToolOutputStore {
  readonly files = new Map<string, string>();
  save(path: string, content: string): Promise<void> {
    this.files.set(path, content);
    return Promise.resolve();
  }
}

function offload(store: ToolOutputStore, events: RecordingEvents) {
  return offloadToolOutputMiddleware({
    maxChars: MAX_CHARS,
    store,
    directory: '.git/caravel-outputs/run-1',
    events,
  });
}

const textOf = (message: BaseMessage) =>
  typeof message.content === 'string' ? message.content : JSON.stringify(message.content);

const script = () =>
  new ScriptedChatModel([
    toolTurn([{ name: 'run_tests', args: {}, id: 'call-1' }]),
    textTurn('done'),
  ]);

describe('offloadToolOutputMiddleware', () => {
  it('a run whose one output overflows its window ends exit_context without it', async () => {
    const reason = await exitOf(
      runAgent(script(), [testRunner('run_tests')], [contextLimit(WINDOW, new RecordingEvents())]),
    );
    expect(reason).toBe('exit_context');
  });

  it('writes the output to a file in the run folder, the model reads a pointer, size and preview, and the run completes', async () => {
    const store = new MemoryStore();
    const events = new RecordingEvents();
    const model = script();

    const out = await runAgent(
      model,
      [testRunner('run_tests')],
      [offload(store, events), contextLimit(WINDOW, events)],
    );

    expect(out.messages.at(-1)?.content).toBe('done');
    const path = '.git/caravel-outputs/run-1/call-1.txt';
    expect(store.files.get(path)).toBe(LOG);
    const [result] = toolMessages(out.messages);
    const notice = result ? textOf(result) : '';
    expect(notice).toContain(`saved in full in ${path}`);
    expect(notice).toContain(`${LOG.length.toLocaleString('en-US')} characters, 3,000 lines`);
    expect(notice).toContain('PASS src/ok.spec.ts');
    expect(notice.trimEnd().endsWith('FAIL src/parser.spec.ts')).toBe(true);
    expect(notice.length).toBeLessThan(MAX_CHARS);
    for (const sent of model.calls) {
      const chars = sent.reduce((n, m) => n + textOf(m).length, 0);
      expect(chars / 4).toBeLessThan(WINDOW);
    }
    expect(events.events).toContainEqual({
      type: 'tool_output_offloaded',
      tool: 'run_tests',
      path,
      chars: LOG.length,
    });
  });

  it('leaves outputs under the limit, and read_file outputs, as they are', async () => {
    const store = new MemoryStore();
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'read_file', args: {} }]),
      textTurn('done'),
    ]);
    const out = await runAgent(
      model,
      [testRunner('read_file')],
      [offload(store, new RecordingEvents())],
    );
    expect(toolMessages(out.messages).map(textOf)).toEqual([LOG]);
    expect(store.files.size).toBe(0);
  });

  it('clips the output to its two ends when the file cannot be written, and says why', async () => {
    const events = new RecordingEvents();
    const broken: ToolOutputStore = { save: () => Promise.reject(new Error('disk full')) };
    const out = await runAgent(
      new ScriptedChatModel([toolTurn([{ name: 'run_tests', args: {} }]), textTurn('done')]),
      [testRunner('run_tests')],
      [offload(broken, events)],
    );
    const [kept] = toolMessages(out.messages).map(textOf);
    expect(kept?.startsWith('PASS src/ok.spec.ts\n')).toBe(true);
    expect(kept?.endsWith('FAIL src/parser.spec.ts')).toBe(true);
    expect(kept).toMatch(/<response clipped: \d+ characters elided; .*\(disk full\)>/);
    expect(kept?.length).toBeLessThan(MAX_CHARS + 200);
    expect(events.events).toContainEqual({
      type: 'tool_output_offload_failed',
      tool: 'run_tests',
      reason: 'disk full',
    });
  });
});
