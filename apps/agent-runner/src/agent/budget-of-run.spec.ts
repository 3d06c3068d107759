import { workingTreeInstructionFiles } from './agents-file-finder.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartRunV1 } from '@caravel/contracts';
import type {
  BudgetLimitRepository,
  BudgetPauseRepository,
  BudgetPauseRow,
  RunRepository,
} from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import type { ReplyChannel, ScmPort } from '@caravel/tools';
import { afterAll, describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { agentRunnerConfigFrom } from '../agent-runner.config.js';
import { concludeFailure } from '../services/conclude-stream.js';
import { RunEvents } from '../services/run-events.js';
import { call, scriptedFactory, scriptedWorkspace, type Turn } from '../testing/scripted-run.js';
import { recordingPublisher } from '../testing/recording-publisher.js';
import type { AgentFactoryService } from './agent-factory.service.js';
import {
  budgetOfRun,
  budgetPauseText,
  continuationBudgetUsd,
  effectiveBudgetUsd,
  RunBudgets,
  tightestBudget,
} from './budget-of-run.js';
import { streamRun } from './run-stream.js';

describe("a run's effective budget", () => {
  it.each([
    ['the environment alone', 3, { team: null, repository: null, person: null }, 3],
    [
      "the team's saved limit over the environment",
      3,
      { team: 10, repository: null, person: null },
      10,
    ],
    ['the tightest of team, repository and person', 3, { team: 10, repository: 4, person: 6 }, 4],
    ["a person's below the team's", 3, { team: null, repository: null, person: 1.5 }, 1.5],
    [
      'a repository limit when the team has none (RUN_BUDGET_USD=0)',
      0,
      { team: null, repository: 2, person: null },
      2,
    ],
    ['no budget when nothing limits', 0, { team: null, repository: null, person: null }, 0],
  ])('%s', (_name, env, limits, expected) => {
    expect(effectiveBudgetUsd(env, limits)).toBe(expected);
  });

  it.each([
    [3, { team: null, repository: null, person: null }, { usd: 3, from: 'environment' }],
    [3, { team: 10, repository: 4, person: 6 }, { usd: 4, from: 'repository' }],
    [3, { team: 2, repository: 4, person: 2 }, { usd: 2, from: 'team' }],
    [0, { team: null, repository: null, person: 1.5 }, { usd: 1.5, from: 'person' }],
    [0, { team: null, repository: null, person: null }, { usd: 0, from: 'none' }],
  ] as const)('names whose limit is the tightest (env $%d, %j)', (env, limits, expected) => {
    expect(tightestBudget(env, limits)).toEqual(expected);
  });

  it('gives a continuation what was left of the paused run plus the grant', () => {
    expect(continuationBudgetUsd({ budgetUsd: 2.5, spentUsd: 2, grantedUsd: 5 })).toBe(5.5);
    expect(continuationBudgetUsd({ budgetUsd: 2, spentUsd: 2.4, grantedUsd: 5 })).toBe(5);
  });

  it('asks for more in words that say what was spent and how to continue', () => {
    const text = budgetPauseText({ spentUsd: 2, budgetUsd: 2.5, nextCallUsd: 1 });
    expect(text).toContain('spent $2.00 of its $2.50 budget');
    expect(text).toContain('"continue with $5 more"');
  });
});

const dir = mkdtempSync(join(tmpdir(), 'caravel-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pauses table as the runner and dispatch use it, in memory. */
function pauseStore() {
  const rows: BudgetPauseRow[] = [];
  const repository = strictMock<BudgetPauseRepository>(
    {
      record: (pause) => {
        rows.push({
          ...pause,
          pausedAt: new Date(),
          grantedUsd: null,
          grantedBy: null,
          grantedAt: null,
          resumedBy: null,
          withdrawnAt: null,
          withdrawnBy: null,
        });
        return Promise.resolve(true);
      },
      takeGrant: (threadId, runId) => {
        const row = rows.find((r) => r.threadId === threadId && r.grantedUsd !== null);
        if (!row || (row.resumedBy !== null && row.resumedBy !== runId))
          return Promise.resolve(null);
        row.resumedBy = runId;
        return Promise.resolve(row);
      },
    },
    'pauses',
  );
  return { rows, repository };
}

/** One run of `thread` through the real factory and stack on a scripted model, as the executor builds it. */
async function runOnce(
  thread: { threadId: string; checkpointer: MemorySaver },
  turns: Turn[],
  budgets: RunBudgets,
  prompt: string,
) {
  const file = `script-${randomUUID()}.json`;
  writeFileSync(join(dir, file), JSON.stringify({ responses: turns }));
  const config = agentRunnerConfigFrom({
    CARAVEL_MODEL: `scripted:${file}`,
    CARAVEL_FILE_ROOT: dir,
  });
  const { threadId } = thread;
  const runId = randomUUID();
  const fixture = StartRunV1.fixture();
  const events = new RunEvents(
    recordingPublisher().publisher,
    strictMock<RunRepository>({ recordConclusion: () => Promise.resolve(true) }, 'runs'),
    { ...fixture, data: { ...fixture.data, threadId, runId } },
    'runner-test',
  );
  const replies: string[] = [];
  const workspace = scriptedWorkspace(dir, threadId, { owner: 'acme', name: 'widgets' });
  const channel = strictMock<ReplyChannel>(
    { reply: (text) => Promise.resolve({ messageId: String(replies.push(text)) }) },
    'channel',
  );
  // As the executor does for a single run: its budget and pause from RunBudgets.
  const budget = await budgetOfRun(budgets, { threadId, runId, workspace, channel });
  const built = await scriptedFactory(config, thread.checkpointer).build({
    threadId,
    runId,
    options: {},
    workspace,
    instructions: workingTreeInstructionFiles(workspace.sandbox),
    channel,
    ...budget,
    scm: strictMock<ScmPort>({}, 'scm'),
    notifier: strictMock<Parameters<AgentFactoryService['build']>[0]['notifier']>({}, 'notifier'),
    events: { emit: () => undefined },
    queue: { drain: () => Promise.resolve([]) },
    isTrustedAuthor: () => false,
  });
  const run = streamRun(built, { threadId, runId, prompt }, events.steps(), () =>
    Promise.resolve(),
  );
  const ending = await run.then(
    () => null,
    (error: unknown) =>
      concludeFailure(error, {
        signal: new AbortController().signal,
        diff: () => Promise.resolve(''),
      }),
  );
  return { runId, replies, ending };
}

const kinds = (messages: BaseMessage[]) =>
  messages.map((m) =>
    HumanMessage.isInstance(m)
      ? `human:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`
      : AIMessage.isInstance(m)
        ? `ai:${m.tool_calls?.[0]?.name ?? 'text'}`
        : ToolMessage.isInstance(m)
          ? `tool:${m.name}`
          : m.type,
  );

describe('pausing at the budget, and continuing with a grant', () => {
  it('pauses before the call that would cross it, asks, and a granted continuation resumes from the checkpoint', async () => {
    const thread = { threadId: randomUUID(), checkpointer: new MemorySaver() };
    const store = pauseStore();
    const limits = strictMock<BudgetLimitRepository>(
      { applicable: () => Promise.resolve({ team: null, repository: null, person: null }) },
      'limits',
    );
    const budgets = new RunBudgets(
      agentRunnerConfigFrom({ RUN_BUDGET_USD: '2.5' }),
      limits,
      store.repository,
    );
    const costly = (turn: Turn): Turn => ({ ...turn, cost: 1 });

    const paused = await runOnce(
      thread,
      [costly(call('ls')), costly(call('ls')), costly(call('ls'))],
      budgets,
      'Fix the parser.',
    );

    expect(paused.ending).toMatchObject({
      kind: 'failed',
      conclusion: { exitStatus: 'exit_budget_paused', submission: null },
    });
    expect(store.rows).toMatchObject([{ runId: paused.runId, budgetUsd: 2.5, spentUsd: 2 }]);
    expect(paused.replies).toEqual([
      budgetPauseText({ spentUsd: 2, budgetUsd: 2.5, nextCallUsd: 1 }),
    ]);

    // Dispatch records an authorised person's "continue with $5 more" on the pause.
    Object.assign(store.rows[0] ?? {}, {
      grantedUsd: 5,
      grantedBy: 'slack:U1',
      grantedAt: new Date(),
    });
    const continued = await runOnce(
      thread,
      // Four more paid calls: over the $2.50 a fresh run would get, within the $5.50 granted.
      [
        costly(call('ls')),
        costly(call('ls')),
        costly(call('ls')),
        costly(call('reply_to_user', { text: 'Fixed.' })),
        { content: 'done' },
      ],
      budgets,
      'continue with $5 more',
    );

    expect(continued.ending).toBeNull();
    expect(continued.replies).toEqual(['Fixed.']);
    expect(store.rows[0]?.resumedBy).toBe(continued.runId);
    const state = (
      await thread.checkpointer.getTuple({ configurable: { thread_id: thread.threadId } })
    )?.checkpoint.channel_values as { messages: BaseMessage[] };
    // The paused run's two calls were kept, not made again; the continuation went on from them.
    expect(kinds(state.messages)).toEqual([
      expect.stringContaining('human:Fix the parser.'),
      'ai:ls',
      'tool:ls',
      'ai:ls',
      'tool:ls',
      expect.stringContaining('human:continue with $5 more'),
      ...['ai:ls', 'tool:ls', 'ai:ls', 'tool:ls', 'ai:ls', 'tool:ls'],
      'ai:reply_to_user',
      'tool:reply_to_user',
      'ai:text',
    ]);
  });
});
