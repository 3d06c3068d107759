import { RunEventRepository } from '@caravel/db';
import { expect, it } from '@jest/globals';
import { describeEachPair } from './harness/platform-pairs.js';
import { scenarioOutcome, startScenario } from './harness/scenario-run.js';
import { fakeOpenAiForFile, pairForSuite, SLOW_RUN_TIMEOUT_MS } from './harness/suite-fixtures.js';
import { z } from 'zod';

/** The part of a `.traj` this test reads: the subagents Caravel adds beside SWE-agent's fields. */
const subagentsPart = z.object({
  caravel: z
    .object({
      subagents: z
        .array(
          z.object({
            model: z.string().nullable(),
            description: z.string().nullable(),
            result: z.string().nullable(),
            exit_status: z.string(),
            trajectory: z.array(z.object({ action: z.string() })),
          }),
        )
        .optional(),
    })
    .optional(),
});

// A run that delegates to a subagent and keeps a todo list, end to end on both pairs: the
// dashboard indexes the run's subagent and todo events, so the thread's `.traj` (read back from
// the index) holds the subagent as a child run with its model, task and answer.
const MODEL = { model: 'openai-compatible:delegating-model' };
const TASK = { description: 'count the files', prompt: 'Count the files at the top and report.' };
const ANSWER = 'There are 4 files.';

const fake = fakeOpenAiForFile();
const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, args }] });

await describeEachPair('subagents and todos', (kind) => {
  const pair = pairForSuite(kind, () => ({ OPENAI_COMPATIBLE_BASE_URL: fake().baseUrl }));

  it(
    'keeps the subagent as a child run of the .traj, and the todo list as an indexed event',
    async () => {
      fake().enqueue(
        call('write_todos', { todos: [{ content: 'count the files', status: 'in_progress' }] }),
        call('task', TASK),
        // The subagent: one command, then its final answer.
        call('execute', { command: 'ls | wc -l' }),
        { text: ANSWER },
        call('submit', {}),
      );
      const started = await startScenario(pair(), {
        prompt: 'Delegate the count.',
        options: MODEL,
      });
      const out = await scenarioOutcome(pair(), started, started.runId, SLOW_RUN_TIMEOUT_MS);
      expect(out.run).toMatchObject({ exitStatus: 'submitted' });

      const extra = subagentsPart.parse(out.traj);
      const [subagent] = extra.caravel?.subagents ?? [];
      expect(subagent).toMatchObject({
        model: 'openai-compatible:delegating-model',
        description: TASK.description,
        result: ANSWER,
        exit_status: 'submitted',
      });
      // Its command, then its final message (a step with no action, as SWE-agent writes one).
      expect(subagent?.trajectory.map((step) => step.action)).toEqual([
        'execute {"command":"ls | wc -l"}',
        '',
      ]);
      const events = await new RunEventRepository(pair().database.db).listByThread(
        started.threadId,
        {},
      );
      const todos = events.find((event) => event.type === 'evt.run.todos');
      expect(todos?.data).toMatchObject({
        todos: [{ content: 'count the files', status: 'in_progress' }],
      });
    },
    SLOW_RUN_TIMEOUT_MS,
  );
});
