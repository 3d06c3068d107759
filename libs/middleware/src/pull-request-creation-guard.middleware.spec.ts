import { describe, expect, it } from '@jest/globals';
import { tool } from 'langchain';
import { z } from 'zod';
import { pullRequestCreationGuardMiddleware } from './pull-request-creation-guard.middleware.js';
import { recordingTool, runAgent, toolMessages } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

/** A workspace whose changes the tools move: `edit` adds one, the PR tool publishes them. */
function workspace() {
  const state = { changes: '', submitted: 0, published: 0 };
  const edit = tool(
    async ({ line }: { line: string }) => {
      state.changes += `${line}\n`;
      return 'edited';
    },
    { name: 'edit_file', description: 'edit (test)', schema: z.object({ line: z.string() }) },
  );
  const openPr = tool(
    async () => {
      state.published += 1;
      return 'opened draft pull request #1';
    },
    { name: 'commit_and_open_pr', description: 'PR (test)', schema: z.object({}) },
  );
  const submit = tool(
    async () => {
      state.submitted += 1;
      return 'submitted';
    },
    { name: 'submit', description: 'submit (test)', schema: z.object({}) },
  );
  return { state, tools: [edit, openPr, submit], changes: () => Promise.resolve(state.changes) };
}

const call = (name: string, args: Record<string, unknown> = {}) => toolTurn([{ name, args }]);

function guard(
  alwaysCreate: boolean,
  changes: () => Promise<string>,
  events = new RecordingEvents(),
) {
  return pullRequestCreationGuardMiddleware({
    events,
    pullRequestToolName: 'commit_and_open_pr',
    policy: { alwaysCreate, changes },
  });
}

describe('pullRequestCreationGuardMiddleware under "always create PRs"', () => {
  it('refuses to end a run with unpublished changes until the PR tool published them', async () => {
    const events = new RecordingEvents();
    const ws = workspace();
    const model = new ScriptedChatModel([
      call('edit_file', { line: 'fix' }),
      call('submit'),
      call('commit_and_open_pr'),
      call('submit'),
      textTurn('done'),
    ]);

    const out = await runAgent(model, ws.tools, [guard(true, ws.changes, events)]);

    const [, refused, , submitted] = toolMessages(out.messages);
    expect(refused?.status).toBe('error');
    expect(refused?.content).toMatch(
      /submit was not run: the person who asked always wants a pull request.*Call commit_and_open_pr first/,
    );
    expect(submitted?.content).toBe('submitted');
    expect(ws.state).toMatchObject({ submitted: 1, published: 1 });
    expect(events.events).toEqual([{ type: 'pull_request_required', tool: 'submit' }]);
  });

  it('asks again when the run changed more after its pull request', async () => {
    const ws = workspace();
    const model = new ScriptedChatModel([
      call('edit_file', { line: 'one' }),
      call('commit_and_open_pr'),
      call('edit_file', { line: 'two' }),
      call('submit'),
      call('commit_and_open_pr'),
      call('submit'),
      textTurn('done'),
    ]);

    const out = await runAgent(model, ws.tools, [guard(true, ws.changes)]);

    expect(toolMessages(out.messages).map((m) => m.status ?? 'success')).toEqual([
      'success',
      'success',
      'success',
      'error',
      'success',
      'success',
    ]);
    expect(ws.state).toMatchObject({ submitted: 1, published: 2 });
  });

  it('lets a run without changes end, and never traps one whose pull request cannot be opened', async () => {
    const events = new RecordingEvents();
    const clean = workspace();
    await runAgent(new ScriptedChatModel([call('submit'), textTurn('done')]), clean.tools, [
      guard(true, clean.changes),
    ]);
    expect(clean.state.submitted).toBe(1);

    const stuck = workspace();
    const model = new ScriptedChatModel([
      call('edit_file', { line: 'fix' }),
      call('submit'),
      call('submit'),
      textTurn('done'),
    ]);
    await runAgent(model, stuck.tools, [guard(true, stuck.changes, events)]);

    expect(stuck.state.submitted).toBe(1);
    expect(events.events).toEqual([
      { type: 'pull_request_required', tool: 'submit' },
      { type: 'pull_request_policy_unmet' },
    ]);
  });

  it('lets the run end with unpublished changes when the policy is off', async () => {
    const ws = workspace();
    const model = new ScriptedChatModel([
      call('edit_file', { line: 'fix' }),
      call('submit'),
      textTurn('done'),
    ]);

    await runAgent(model, ws.tools, [guard(false, ws.changes)]);

    expect(ws.state).toMatchObject({ submitted: 1, published: 0 });
  });

  it('still refuses pull requests made from the shell while the policy is on', async () => {
    const ws = workspace();
    const execute = recordingTool('execute', z.object({ command: z.string() }));
    const model = new ScriptedChatModel([
      call('execute', { command: 'gh pr create --fill' }),
      textTurn('done'),
    ]);

    const out = await runAgent(model, [...ws.tools, execute.tool], [guard(true, ws.changes)]);

    expect(execute.received).toEqual([]);
    expect(toolMessages(out.messages)[0]?.content).toMatch(/gh pr create is not allowed/);
  });
});
