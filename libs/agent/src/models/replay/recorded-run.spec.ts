import { AppError } from '@caravel/errors';
import { fileURLToPath } from 'node:url';
import { createChatModel } from '../chat-model.factory.js';
import { resolveModel } from '../model-resolution.js';
import { loadRecordedRun, parseRecordedRun, toolCallsForAction } from './recorded-run.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('recorded runs', () => {
  it('replays the assistant history of a SWE-agent .traj, skipping demonstrations', () => {
    const answers = loadRecordedRun(`${fixtures}swe-agent-run.traj`);

    expect(answers.map((a) => a.toolCalls)).toEqual([
      [{ name: 'execute', args: { command: 'ls -F' } }],
      [{ name: 'execute', args: { command: 'python -m pytest tests/test_parse.py -q' } }],
      [{ name: 'submit', args: {} }],
    ]);
    expect(answers[0]!.content).toBe('DISCUSSION\nLet me look around.');
    expect(answers[0]!.origin).toMatch(/swe-agent-run\.traj:\d+:\d+$/);
  });

  it('falls back to the trajectory steps when there is no history', () => {
    const text = JSON.stringify({
      trajectory: [
        { action: 'cat README.md', response: 'Reading.' },
        { action: 'exit', response: 'Giving up.' },
      ],
    });
    const answers = parseRecordedRun('t.traj', text);
    expect(answers.map((a) => [a.content, a.toolCalls])).toEqual([
      ['Reading.', [{ name: 'execute', args: { command: 'cat README.md' } }]],
      ['Giving up.', []],
    ]);
  });

  it('reads our own list of recorded assistant messages', () => {
    const answers = loadRecordedRun(`${fixtures}recorded-messages.json`);
    expect(answers.map((a) => a.toolCalls)).toEqual([
      [{ name: 'read_file', args: { path: 'tests/test_parse.py' } }],
      [],
    ]);
  });

  it('drives a replay model through the factory, then fails when the recording ends', async () => {
    const resolved = resolveModel({
      thread: { model: 'replay:swe-agent-run.traj' },
      team: { model: 'gpt-5' },
    });
    const model = createChatModel(resolved, {}, { fileRoot: fixtures });

    const calls = [];
    for (let i = 0; i < 3; i += 1) calls.push((await model.invoke('next')).tool_calls?.[0]?.name);
    expect(calls).toEqual(['execute', 'execute', 'submit']);
    await expect(model.invoke('more')).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      details: { reason: 'model-script-exhausted' },
    });
  });

  it('names the file and position of malformed JSON', () => {
    const error = thrown(() =>
      parseRecordedRun('broken.traj', '{\n  "trajectory": [\n    { "action": "ls", }\n'),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/^broken\.traj:\d+:\d+: cannot parse: /);
  });

  it('rejects JSON that is not a trajectory', () => {
    const error = thrown(() => parseRecordedRun('other.json', '{ "name": "not a run" }'));
    expect(error.message).toMatch(
      /^other\.json:1:1: not a trajectory: it records no assistant step/,
    );

    const wrongStep = thrown(() =>
      parseRecordedRun('steps.traj', '{ "trajectory": [ { "observation": "no action" } ] }'),
    );
    expect(wrongStep.message).toMatch(
      /^steps\.traj:1:\d+: not a valid SWE-agent trajectory at trajectory\[0\]\.action/,
    );
  });

  it('maps SWE-agent actions to our tools', () => {
    expect(toolCallsForAction('  submit  ')).toEqual([{ name: 'submit', args: {} }]);
    expect(toolCallsForAction('')).toEqual([]);
    expect(toolCallsForAction('grep -rn foo .')).toEqual([
      { name: 'execute', args: { command: 'grep -rn foo .' } },
    ]);
  });
});
