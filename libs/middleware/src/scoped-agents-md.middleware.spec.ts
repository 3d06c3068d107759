import { describe, it, expect } from '@jest/globals';
import { tool } from 'langchain';
import { z } from 'zod';
import { scopedAgentsMdMiddleware } from './scoped-agents-md.middleware.js';
import { runAgent, toolMessages } from './testing/agent-harness.js';
import { MapAgentsFinder, RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const readFile = tool(async ({ file_path }: { file_path: string }) => `contents of ${file_path}`, {
  name: 'read_file',
  description: 'read a file',
  schema: z.object({ file_path: z.string() }),
});

const reads = (...paths: string[]) =>
  paths.map((p) => toolTurn([{ name: 'read_file', args: { file_path: p } }]));

const finder = () =>
  new MapAgentsFinder({
    '/repo': 'root rules',
    '/repo/pkg': 'pkg rules',
    '/repo/other': 'other rules',
  });

describe('scopedAgentsMdMiddleware', () => {
  it('appends the AGENTS.md files of the directory and its parents, root first', async () => {
    const model = new ScriptedChatModel([...reads('/repo/pkg/a.ts'), textTurn('done')]);
    const mw = scopedAgentsMdMiddleware({ finder: finder(), events: new RecordingEvents() });

    const out = await runAgent(model, [readFile], [mw]);

    const content = toolMessages(out.messages)[0]?.text ?? '';
    expect(content.startsWith('contents of /repo/pkg/a.ts')).toBe(true);
    expect(content.indexOf('root rules')).toBeGreaterThan(0);
    expect(content.indexOf('root rules')).toBeLessThan(content.indexOf('pkg rules'));
    expect(content).not.toContain('other rules');
  });

  it('appends each file only the first time it is relevant in the run', async () => {
    const model = new ScriptedChatModel([
      ...reads('/repo/pkg/a.ts', '/repo/pkg/b.ts', '/repo/other/c.ts'),
      textTurn('done'),
    ]);
    const mw = scopedAgentsMdMiddleware({ finder: finder(), events: new RecordingEvents() });

    const out = await runAgent(model, [readFile], [mw]);

    const [first, second, third] = toolMessages(out.messages).map((m) => m.text);
    expect(first).toContain('pkg rules');
    expect(second).toBe('contents of /repo/pkg/b.ts');
    expect(third).toContain('other rules');
    expect(third).not.toContain('root rules');
  });

  it('does not append the same file twice when two reads run in the same step', async () => {
    const parallel = toolTurn([
      { name: 'read_file', args: { file_path: '/repo/pkg/a.ts' } },
      { name: 'read_file', args: { file_path: '/repo/pkg/b.ts' } },
    ]);
    const model = new ScriptedChatModel([parallel, textTurn('done')]);
    const mw = scopedAgentsMdMiddleware({ finder: finder(), events: new RecordingEvents() });

    const out = await runAgent(model, [readFile], [mw]);

    const all = toolMessages(out.messages)
      .map((m) => m.text)
      .join('\n');
    expect(all.split('pkg rules')).toHaveLength(2);
  });

  it('starts over in the next run of the same middleware', async () => {
    const mw = scopedAgentsMdMiddleware({ finder: finder(), events: new RecordingEvents() });
    await runAgent(
      new ScriptedChatModel([...reads('/repo/pkg/a.ts'), textTurn('done')]),
      [readFile],
      [mw],
    );

    const out = await runAgent(
      new ScriptedChatModel([...reads('/repo/pkg/a.ts'), textTurn('done')]),
      [readFile],
      [mw],
    );

    expect(toolMessages(out.messages)[0]?.text).toContain('pkg rules');
  });

  it('clips a huge AGENTS.md visibly and reports a failing finder without failing the read', async () => {
    const events = new RecordingEvents();
    const big = scopedAgentsMdMiddleware({
      finder: new MapAgentsFinder({ '/repo': 'x'.repeat(100) }),
      events,
      maxCharsPerFile: 10,
    });
    const clipped = await runAgent(
      new ScriptedChatModel([...reads('/repo/a.ts'), textTurn('d')]),
      [readFile],
      [big],
    );
    expect(toolMessages(clipped.messages)[0]?.text).toMatch(/truncated: 90 more characters/);

    const broken = scopedAgentsMdMiddleware({
      finder: { findAgentsFiles: () => Promise.reject(new Error('sandbox gone')) },
      events,
    });
    const out = await runAgent(
      new ScriptedChatModel([...reads('/repo/a.ts'), textTurn('d')]),
      [readFile],
      [broken],
    );
    expect(toolMessages(out.messages)[0]?.text).toMatch(/could not be loaded: sandbox gone/);
    expect(events.events).toEqual([
      { type: 'agents_md_unavailable', path: '/repo/a.ts', reason: 'sandbox gone' },
    ]);
  });
});
