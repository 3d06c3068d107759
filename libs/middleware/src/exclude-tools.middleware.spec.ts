import { describe, expect, it } from '@jest/globals';
import { excludeToolsMiddleware } from './exclude-tools.middleware.js';
import { recordingTool, runAgent, toolMessages } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

describe('excludeToolsMiddleware', () => {
  it('hides the excluded tools and refuses a call to one', async () => {
    const events = new RecordingEvents();
    const [web, ls] = [recordingTool('web_search'), recordingTool('ls')];
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'web_search', args: {} }]),
      textTurn('ok'),
    ]);

    const out = await runAgent(
      model,
      [web.tool, ls.tool],
      [excludeToolsMiddleware({ excluded: ['web_search'], events })],
    );

    expect(model.boundToolNames.every((names) => !names.includes('web_search'))).toBe(true);
    expect(web.received).toEqual([]);
    expect(toolMessages(out.messages)[0]?.status).toBe('error');
    expect(events.events[0]).toMatchObject({
      type: 'tool_hidden_call_refused',
      tool: 'web_search',
    });
  });

  it('is off by default: nothing excluded changes nothing', async () => {
    const web = recordingTool('web_search');
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'web_search', args: {} }]),
      textTurn('ok'),
    ]);

    await runAgent(
      model,
      [web.tool],
      [excludeToolsMiddleware({ excluded: [], events: new RecordingEvents() })],
    );

    expect(model.boundToolNames[0]).toEqual(['web_search']);
    expect(web.received).toHaveLength(1);
  });
});
