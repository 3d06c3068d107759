import { RunStepV1, StartRunV1, type DataOf } from '@caravel/contracts';
import type { MessagePublisher } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { StepRecorder } from './step-recorder.js';

interface Published {
  data: DataOf<typeof RunStepV1>;
  id: string | undefined;
}

function recorder(): { recorder: StepRecorder; published: Published[] } {
  const published: Published[] = [];
  const publisher = strictMock<MessagePublisher>({
    publish: (definition, data, options) => {
      expect(definition).toBe(RunStepV1);
      // Parsed as a consumer reads it: the step is valid, and typed for the assertions.
      published.push({ data: RunStepV1.dataSchema.parse(data), id: options?.id });
      return Promise.resolve({ stream: 's', sequence: published.length, duplicate: false });
    },
  });
  return { recorder: new StepRecorder(publisher, StartRunV1.fixture(), 'runner'), published };
}

const call = (id: string, name: string, args: Record<string, unknown>) =>
  new AIMessage({
    id,
    content: `thinking ${id}`,
    tool_calls: [{ id: `${id}-c`, name, args, type: 'tool_call' }],
  });
const result = (id: string, content: string) =>
  new ToolMessage({ tool_call_id: `${id}-c`, content });

describe('StepRecorder', () => {
  it('makes one step of a model turn, its tool calls and their observations', async () => {
    const { recorder: r, published } = recorder();
    await r.record(call('m1', 'execute', { command: 'ls' }));
    await r.record(result('m1', 'README.md'));
    await r.record(new AIMessage({ id: 'm2', content: 'All done.' }));
    expect(published.map((p) => p.data)).toEqual([
      {
        threadId: expect.any(String),
        runId: expect.any(String),
        step: 0,
        thought: 'thinking m1',
        action: 'execute {"command":"ls"}',
        observation: 'README.md',
        toolCalls: [{ id: 'm1-c', name: 'execute', args: { command: 'ls' } }],
        results: [{ toolCallId: 'm1-c', name: '', content: 'README.md', status: 'success' }],
        failedAttempts: [],
        actor: 'agent',
      },
      {
        threadId: expect.any(String),
        runId: expect.any(String),
        step: 1,
        thought: 'All done.',
        action: '',
        observation: '',
        toolCalls: [],
        results: [],
        failedAttempts: [],
        actor: 'agent',
      },
    ]);
  });

  it('attaches refused answers to the step that follows them, or to a step of their own at the end', async () => {
    const { recorder: r, published } = recorder();
    const refused = (name: string) => ({
      content: '',
      toolCalls: [{ name, args: {} }],
      failure: 'format',
      message: `There is no tool named ${name}.`,
    });
    r.noteFailedAttempt(refused('nope'));
    await r.record(call('m1', 'execute', { command: 'ls' }));
    await r.record(result('m1', 'README.md'));
    r.noteFailedAttempt(refused('a'));
    r.noteFailedAttempt(refused('b'));
    await r.flush();

    const attempts = published.map((p) => p.data.failedAttempts ?? []);
    expect(attempts.map((list) => list.map((a) => a.toolCalls[0]?.name))).toEqual([
      ['nope'],
      ['a', 'b'],
    ]);
    expect(published[1]?.data).toMatchObject({ step: 1, thought: '', action: '' });
  });

  it('records a message once even when several graph nodes hand it back', async () => {
    const { recorder: r, published } = recorder();
    const message = call('m1', 'submit', {});
    await r.record(message);
    await r.record(message);
    await r.record(result('m1', 'diff'));
    await r.record(result('m1', 'diff'));
    await r.flush();
    expect(published).toHaveLength(1);
    expect(published[0]?.data.observation).toBe('diff');
  });

  it("never makes steps of an earlier run's messages handed back with the whole conversation", async () => {
    const { recorder: r, published } = recorder();
    const earlier = [call('a1', 'execute', { command: 'ls' }), result('a1', 'README.md')];
    r.ignore(earlier);
    for (const message of [...earlier, call('b1', 'submit', {}), result('b1', 'diff')])
      await r.record(message);
    await r.flush();
    expect(published.map((p) => [p.data.step, p.data.action])).toEqual([[0, 'submit']]);
  });

  it('gives each step an id derived from the run, the same on a second recording', async () => {
    const first = recorder();
    const second = recorder();
    for (const { recorder: r } of [first, second]) {
      await r.record(call('m1', 'ls', {}));
      await r.flush();
    }
    expect(first.published[0]?.id).toBeDefined();
    expect(first.published[0]?.id).toBe(second.published[0]?.id);
  });

  it("records the bundles' state for a step's calls, and none for a step without one", async () => {
    const { recorder: r, published } = recorder();
    const asked: (readonly string[])[] = [];
    r.recordStateWith((ids) => {
      asked.push(ids);
      return ids.includes('m1-c') ? { open_file: '/workspace/a.py' } : undefined;
    });
    await r.record(call('m1', 'execute', { command: 'open a.py' }));
    await r.record(result('m1', '[File: a.py]'));
    await r.record(new AIMessage({ id: 'm2', content: 'All done.' }));
    expect(asked).toEqual([['m1-c'], []]);
    expect(published.map((p) => (p.data as { state?: unknown }).state)).toEqual([
      { open_file: '/workspace/a.py' },
      undefined,
    ]);
  });
});
