import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { pullRequestCreationGuardMiddleware } from './pull-request-creation-guard.middleware.js';
import { pullRequestVerdictGuardMiddleware } from './pull-request-verdict-guard.middleware.js';
import { recordingTool, runAgent, toolMessages } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const shell = () => recordingTool('execute', z.object({ command: z.string() }));
const exec = (command: string) => toolTurn([{ name: 'execute', args: { command } }]);

describe('pullRequestVerdictGuardMiddleware', () => {
  it('refuses a verdict before the shell runs it and lets a comment review through', async () => {
    const events = new RecordingEvents();
    const execute = shell();
    const model = new ScriptedChatModel([
      exec('gh pr review 7 \\\n  -ab "ship it"'),
      exec('gh pr review 7 --comment -b "two notes"'),
      textTurn('done'),
    ]);

    const out = await runAgent(
      model,
      [execute.tool],
      [pullRequestVerdictGuardMiddleware({ events })],
    );

    expect(execute.received).toEqual([{ command: 'gh pr review 7 --comment -b "two notes"' }]);
    const [refused, ran] = toolMessages(out.messages);
    expect(refused?.status).toBe('error');
    expect(refused?.content).toMatch(/gh pr review -a is not allowed from the shell/);
    expect(ran?.content).toBe('ok');
    expect(events.events).toEqual([
      {
        type: 'shell_command_blocked',
        guard: 'pull-request-verdict-guard',
        what: 'gh pr review -a',
      },
    ]);
  });

  it('only reads the shell tools', async () => {
    const events = new RecordingEvents();
    const note = recordingTool('note', z.object({ command: z.string() }));
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'note', args: { command: 'gh pr review 7 -a' } }]),
      textTurn('done'),
    ]);

    await runAgent(model, [note.tool], [pullRequestVerdictGuardMiddleware({ events })]);

    expect(note.received).toHaveLength(1);
  });
});

describe('pullRequestCreationGuardMiddleware', () => {
  it('sends pull requests through the PR tool', async () => {
    const events = new RecordingEvents();
    const execute = shell();
    const model = new ScriptedChatModel([
      exec('git push && gh pr create --fill'),
      exec('gh pr view'),
      textTurn('ok'),
    ]);

    const out = await runAgent(
      model,
      [execute.tool],
      [pullRequestCreationGuardMiddleware({ events, pullRequestToolName: 'commit_and_open_pr' })],
    );

    expect(execute.received).toEqual([{ command: 'gh pr view' }]);
    expect(toolMessages(out.messages)[0]?.content).toMatch(/with the commit_and_open_pr tool/);
  });
});
