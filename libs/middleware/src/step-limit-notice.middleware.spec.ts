import { describe, it, expect } from '@jest/globals';
import { stepLimitNoticeMiddleware } from './step-limit-notice.middleware.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { RecordingEvents, RecordingNotifier } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const loopTurns = (n: number) =>
  Array.from({ length: n }, () => toolTurn([{ name: 'ls', args: {} }]));

describe('stepLimitNoticeMiddleware', () => {
  it('notifies the source channel once, when the run is at N steps of its limit', async () => {
    const notifier = new RecordingNotifier();
    const events = new RecordingEvents();
    const model = new ScriptedChatModel([...loopTurns(5), textTurn('done')]);
    const notice = stepLimitNoticeMiddleware({
      threadId: 't-1',
      limit: 8,
      noticeAt: 4,
      notifier,
      events,
    });

    await runAgent(model, [recordingTool('ls').tool], [notice]);

    expect(notifier.notices).toEqual([{ threadId: 't-1', used: 4, limit: 8, remaining: 4 }]);
  });

  it('does not notify a run that stays clear of the notice point', async () => {
    const notifier = new RecordingNotifier();
    const model = new ScriptedChatModel([...loopTurns(2), textTurn('done')]);
    const notice = stepLimitNoticeMiddleware({
      threadId: 't-1',
      limit: 10,
      noticeAt: 2,
      notifier,
      events: new RecordingEvents(),
    });

    await runAgent(model, [recordingTool('ls').tool], [notice]);

    expect(notifier.notices).toEqual([]);
  });

  it('reports a failing notifier as an event and keeps the run going', async () => {
    const notifier = new RecordingNotifier(new Error('slack down'));
    const events = new RecordingEvents();
    const model = new ScriptedChatModel([...loopTurns(2), textTurn('done')]);
    const notice = stepLimitNoticeMiddleware({
      threadId: 't-1',
      limit: 3,
      noticeAt: 1,
      notifier,
      events,
    });

    const out = await runAgent(model, [recordingTool('ls').tool], [notice]);

    expect(out.messages.at(-1)?.content).toBe('done');
    expect(events.events).toEqual([{ type: 'step_limit_notice_failed', reason: 'slack down' }]);
    expect(notifier.notices).toHaveLength(1);
  });
});
