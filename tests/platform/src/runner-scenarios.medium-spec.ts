import { trajJsonSchema } from '@caravel/agent';
import { SandboxWrite, TriggerReceivedV1, runIdForTrigger } from '@caravel/contracts';
import { NO_OUTPUT_MESSAGE } from '@caravel/tools';
import { startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import Ajv from 'ajv';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import {
  runScenario,
  scenarioOutcome,
  scenarioTrigger,
  scriptedModel,
  sendFollowUp,
  shell,
  startScenario,
  submit,
  until,
} from './harness/scenario-run.js';

// The SWE-agent loop discipline, end to end through dispatch, the runner and the sandbox broker,
// on both bus + database pairs. Limits are set low enough to reach from a short script.
const LIMITS = {
  RUN_BUDGET_USD: '2.5',
  RUN_COMMAND_TIMEOUT_MS: '1500',
  RUN_MAX_CONSECUTIVE_TIMEOUTS: '2',
  RUN_STUCK_THRESHOLD: '3',
  // No safety-net poll within a test's life: an interrupt reaches the run only by dispatch's notice.
  RUN_INTERRUPT_POLL_MS: '3600000',
};

const FIX = shell(
  `sed -i "s/.replace(\\/^-\\/, '');/.replace(\\/^-+|-+$\\/g, '');/" src/slugify.js`,
);
const validTraj = new Ajv({ allErrors: true }).compile(trajJsonSchema());

let fake: FakeLlmServer;
let scripts: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  scripts = await mkdtemp(join(tmpdir(), 'caravel-scripts-'));
});

afterAll(async () => {
  await fake.close();
  await rm(scripts, { recursive: true, force: true });
});

await describeEachPair('the runner loop, end to end', (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, {
      ...LIMITS,
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  it('a clean run submits its fix, pushes the branch and exports a valid .traj', async () => {
    const model = await scriptedModel(scripts, `clean-${kind}`, [FIX, shell('npm test'), submit()]);
    const out = await runScenario(pair, { prompt: 'fix the trailing dash', options: { model } });

    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(validTraj(JSON.parse(JSON.stringify(out.traj)))).toBe(true);
    expect(out.traj.info.submission).toContain('-+|-+$');
    expect(out.traj.trajectory).toHaveLength(3);
  });

  it("streams a running command's output to the dashboard before the command ends", async () => {
    // The command prints, then waits for a file only this test writes, and it writes it only
    // once the first line is on the dashboard: so that line was live, not sent afterwards.
    const waitForRelease =
      'echo tick-1; for i in $(seq 1 600); do [ -e .release ] && break; sleep 0.1; done; echo tick-2';
    const model = await scriptedModel(scripts, `live-${kind}`, [
      { tool_calls: [{ name: 'execute', args: { command: waitForRelease, timeout_seconds: 90 } }] },
      submit(),
    ]);
    const started = await startScenario(pair, { prompt: 'watch this', options: { model } });
    type EventView = { type: string; data: { text?: string } };
    const outputOf = async () => {
      const response = await fetch(`${pair.host.url}/api/threads/${started.threadId}/events`);
      // A 404 until dispatch has recorded the thread: no events yet.
      const events: EventView[] = response.ok ? ((await response.json()) as EventView[]) : [];
      return {
        text: events
          .filter((e) => e.type === 'evt.run.output')
          .map((e) => e.data.text ?? '')
          .join(''),
        steps: events.filter((e) => e.type === 'evt.run.step').length,
      };
    };

    const release = () =>
      pair.bus.request(SandboxWrite.subjectFor(started.threadId), {
        threadId: started.threadId,
        path: '.release',
        content: 'go',
      });

    try {
      const early = await until(async () => {
        const seen = await outputOf();
        return seen.text.includes('tick-1') ? seen : undefined;
      }, 'the first line on the dashboard');
      expect(early.steps).toBe(0);
      expect(early.text).not.toContain('tick-2');
    } finally {
      // Whatever happened above, the command ends, so the run frees its slot for the next test.
      await release().catch(() => undefined);
    }
    const out = await scenarioOutcome(pair, started);

    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    const live = await until(async () => {
      const seen = await outputOf();
      return seen.text.includes('tick-2') ? seen.text : undefined;
    }, 'the last line on the dashboard');
    expect(live).toBe('tick-1\ntick-2\n');
    expect(out.traj.trajectory[0]?.observation).toContain('tick-2');
  });

  it('shapes observations: a fixed sentence for no output; a long output offloaded to a file in the sandbox, the model reading its path, size and both ends', async () => {
    const model = await scriptedModel(scripts, `shaping-${kind}`, [
      shell('true'),
      shell('seq 1 20000'),
      submit(),
    ]);
    const out = await runScenario(pair, { prompt: 'look around', options: { model } });

    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    const [silent, long] = out.traj.trajectory.map((step) => step.observation);
    expect(silent).toBe(NO_OUTPUT_MESSAGE);
    // seq 1 20000 prints 108,894 characters (the sandbox caps what it returns at about 100 KB):
    // over RUN_OFFLOAD_OUTPUT_CHARS, so it went whole to a file under the run's folder in the
    // sandbox (written through the broker), and the model read where, its size and both ends.
    const saved =
      /too long for the conversation \(([\d,]+) characters, [\d,]+ lines\)\. It is saved in full in (\.git\/caravel-outputs\/[^ ]+\.txt)/.exec(
        long ?? '',
      );
    expect(Number(saved?.[1]?.replace(/,/g, ''))).toBeGreaterThan(70_000);
    expect(saved?.[2]).toContain(out.run.id);
    expect(long).toMatch(/characters ---\n1\n2\n3\n/);
    // The end keeps execute's own note that the sandbox cut what it returned.
    expect(long).toMatch(
      /19999\n20000\n\n\(The sandbox cut this output before it reached you\.\)$/,
    );
    expect(long?.length).toBeLessThan(5_000);
  });

  it('requeries a blocked command and keeps it out of the history the model sees later', async () => {
    const before = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'execute', args: { command: 'vim src/slugify.js' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'cat src/slugify.js' } }] },
      { toolCalls: [{ name: 'submit', args: {} }] },
    );
    const out = await runScenario(pair, {
      prompt: 'look at slugify',
      options: { model: 'openai-compatible:scenario-model' },
    });

    expect(out.run).toMatchObject({ exitStatus: 'submitted' });
    const sent = fake.requests.slice(before).map((r) => JSON.stringify(r.body?.['messages']));
    expect(sent).toHaveLength(3);
    expect(sent[1]).toContain('vim src/slugify.js'); // the requery shows the refused answer
    expect(sent[2]).not.toContain('vim src/slugify.js'); // later calls never see it
    const refused = out.traj.trajectory.filter((step) => step.extra_info?.['requery']);
    expect(refused).toHaveLength(1);
    expect(JSON.stringify(out.traj.history)).not.toContain('vim src/slugify.js');
  });

  it('pauses before the paid call that could cross the budget, submitting nothing: its continuation goes on', async () => {
    const model = await scriptedModel(scripts, `budget-${kind}`, [
      shell('echo one > one.txt', { cost: 1 }),
      shell('echo two > two.txt', { cost: 1 }),
      shell('echo three > three.txt', { cost: 1 }),
      submit(),
    ]);
    const out = await runScenario(pair, { prompt: 'write files', options: { model } });

    expect(out.run).toMatchObject({ status: 'interrupted', exitStatus: 'exit_budget_paused' });
    expect(out.traj.info.submission).toBeNull();
    expect(out.traj.info.model_stats?.instance_cost).toBe(2);
  });

  it('ends with exit_format after three unusable answers in one step', async () => {
    const wrong = { tool_calls: [{ name: 'open_editor', args: {} }] };
    const model = await scriptedModel(scripts, `format-${kind}`, [wrong, wrong, wrong, submit()]);
    const out = await runScenario(pair, { prompt: 'do it', options: { model } });

    expect(out.run.exitStatus).toBe('exit_format');
    // Three refused answers, then the exit step that says why the run ended.
    expect(out.traj.trajectory.map((step) => Boolean(step.extra_info?.['requery']))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(out.traj.trajectory.at(-1)?.observation).toMatch(/3 unusable answers/);
  });

  it('ends with exit_command_timeout after consecutive timeouts, before the next command', async () => {
    const model = await scriptedModel(scripts, `timeout-${kind}`, [
      shell('echo first > first.txt'),
      shell('sleep 30'),
      shell('sleep 30'),
      shell('echo never > never.txt'),
      submit(),
    ]);
    const out = await runScenario(pair, { prompt: 'wait', options: { model } });

    // Stopped short: failed, its work so far kept as the submission.
    expect(out.run).toMatchObject({
      status: 'failed',
      exitStatus: 'submitted (exit_command_timeout)',
    });
    expect(out.traj.info.submission).toContain('first.txt');
    expect(out.traj.info.submission).not.toContain('never.txt');
  });

  it('ends with exit_stuck when the same command keeps giving the same output', async () => {
    const model = await scriptedModel(scripts, `stuck-${kind}`, [
      shell('ls src'),
      shell('ls src'),
      shell('ls src'),
      shell('echo never > never.txt'),
      submit(),
    ]);
    const out = await runScenario(pair, { prompt: 'look around', options: { model } });

    expect(out.run.exitStatus).toBe('exit_stuck');
    expect(out.traj.trajectory.map((step) => step.action)).toEqual([
      'execute {"command":"ls src"}',
      'execute {"command":"ls src"}',
      'execute {"command":"ls src"}',
      '',
    ]);
  });

  it('a rate limit with retry-after is waited out and the run carries on', async () => {
    const before = fake.requests.length;
    fake.enqueue(
      { error: { status: 429, message: 'slow down', retryAfterSeconds: 1 } },
      { toolCalls: [{ name: 'submit', args: {} }] },
    );
    const out = await runScenario(pair, {
      prompt: 'nothing to do',
      options: { model: 'openai-compatible:scenario-model' },
    });

    expect(out.run).toMatchObject({ exitStatus: 'submitted' });
    expect(fake.requests.length - before).toBe(2);
  });

  it('ends with submitted (exit_forfeit) when the agent gives up, keeping what it changed', async () => {
    const model = await scriptedModel(scripts, `forfeit-${kind}`, [
      shell('echo notes > notes.txt'),
      { tool_calls: [{ name: 'exit_forfeit', args: { reason: 'the task needs credentials' } }] },
    ]);
    const out = await runScenario(pair, { prompt: 'deploy it', options: { model } });

    // Gave up: failed (dispatch says so in the thread), what it changed kept as the submission.
    expect(out.run).toMatchObject({ status: 'failed', exitStatus: 'submitted (exit_forfeit)' });
    expect(out.traj.info.submission).toContain('notes.txt');
  });

  it('ends with exit_context when the provider refuses the prompt as too long', async () => {
    fake.enqueue({
      error: {
        status: 400,
        message: "This model's maximum context length is 8192 tokens, your messages had 9001.",
        type: 'invalid_request_error',
      },
    });
    const out = await runScenario(pair, {
      prompt: 'read everything',
      options: { model: 'openai-compatible:scenario-model' },
    });

    expect(out.run).toMatchObject({ status: 'failed', exitStatus: 'exit_context' });
  });

  it('ends with exit_error, not a crash, when the thread names a model that does not exist', async () => {
    const out = await runScenario(pair, {
      prompt: 'anything',
      options: { model: 'nonexistent:model-x' },
    });

    expect(out.run).toMatchObject({ status: 'failed', exitStatus: 'exit_error' });
    expect(out.run.summary).toMatch(/model/i);
  });

  it('a sandbox that cannot start ends the run with exit_environment_error, not exit_api', async () => {
    const before = fake.requests.length;
    const { trigger, started } = await scenarioTrigger({
      prompt: 'work on a repository that is not there',
      options: { model: 'openai-compatible:scenario-model' },
    });
    const repository = { owner: 'local', name: 'gone', cloneUrl: join(scripts, 'no-such-repo') };
    const gone = TriggerReceivedV1.create({ ...trigger.data, repository }, { source: 'scenario' });
    await pair.bus.publish(TriggerReceivedV1, gone);
    const runId = runIdForTrigger(gone.id);
    const out = await scenarioOutcome(pair, { ...started, runId }, runId);

    expect(out.run).toMatchObject({ status: 'failed', exitStatus: 'exit_environment_error' });
    expect(out.run.summary).toMatch(/sandbox could not start/);
    expect(fake.requests.length).toBe(before);
  });

  it('a provider that keeps failing ends the run with exit_api', async () => {
    const failure = { error: { status: 500, message: 'upstream broke' } };
    fake.enqueue(failure, failure, failure, failure);
    const out = await runScenario(pair, {
      prompt: 'anything',
      options: { model: 'openai-compatible:scenario-model' },
    });

    expect(out.run.exitStatus).toBe('exit_api');
    expect(fake.pending).toBe(0);
  });

  it('a message from a person interrupts the run; the next run resumes its history with it', async () => {
    const before = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'execute', args: { command: 'echo one > one.txt' } }] },
      { text: 'thinking for a long time', delayMs: 60_000 },
      { toolCalls: [{ name: 'submit', args: {} }] },
    );
    const started = await startScenario(pair, {
      prompt: 'write one.txt',
      options: { model: 'openai-compatible:scenario-model' },
    });
    // Interrupt while the second model call hangs: the first step is checkpointed by then.
    for (let i = 0; i < 600 && fake.requests.length < before + 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const followUpRun = await sendFollowUp(pair, started.threadId, 'actually, stop and submit');

    const interrupted = await scenarioOutcome(pair, started);
    expect(interrupted.run).toMatchObject({
      status: 'interrupted',
      exitStatus: 'exit_interrupted',
    });
    // Dispatch starts the waiting run once it has taken the interrupted run's ending: wait for it.
    const threadRuns = () =>
      pair.database.db
        .selectFrom('runs')
        .select(['id', 'status', 'exit_status'])
        .where('thread_id', '=', started.threadId)
        .orderBy('created_at')
        .execute();
    const resumedOf = (rows: Awaited<ReturnType<typeof threadRuns>>) =>
      rows.find((run) => run.id !== started.runId && run.status !== 'merged');
    let runs = await threadRuns();
    for (let i = 0; i < 600 && !resumedOf(runs); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      runs = await threadRuns();
    }
    const resumed = resumedOf(runs);
    expect(resumed).toBeDefined();
    const next = await scenarioOutcome(pair, started, resumed?.id);
    expect(next.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(runs.find((run) => run.id === followUpRun)?.status).toBe('merged');
    // The resumed run's model call holds the whole history plus the new message, once.
    const resumedCall = JSON.stringify(fake.requests[before + 2]?.body?.['messages']);
    expect(resumedCall).toContain('write one.txt');
    expect(resumedCall).toContain('echo one > one.txt');
    expect(resumedCall.split('actually, stop and submit')).toHaveLength(2);
    expect(fake.requests.length - before).toBe(3);
    expect(next.diff ?? next.traj.info.submission).toContain('one.txt');
  });
});

// A total command-time limit small enough to cross with one command: a pair of its own, so the
// other scenarios keep the default.
await describeEachPair('the runner loop with a small total command time', (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, { RUN_MAX_COMMAND_SECONDS: '1' });
  }, 120_000);

  afterAll(async () => {
    await pair?.close();
  });

  it('ends with submitted (exit_total_execution_time) before the next step, autosubmitting the work', async () => {
    const model = await scriptedModel(scripts, `total-time-${kind}`, [
      shell('echo first > first.txt'),
      shell('sleep 2'),
      shell('echo never > never.txt'),
      submit(),
    ]);
    const out = await runScenario(pair, { prompt: 'take your time', options: { model } });

    expect(out.run).toMatchObject({
      status: 'failed',
      exitStatus: 'submitted (exit_total_execution_time)',
    });
    expect(out.traj.info.submission).toContain('first.txt');
    expect(out.traj.info.submission).not.toContain('never.txt');
    expect(out.traj.info.exit_status).toBe('submitted (exit_total_execution_time)');
  }, 180_000);
});

// Isolation itself: bubblewrap's, so this suite needs it (skipped without it, failing under CI).
await describeEachPair(
  'the runner loop in an isolated sandbox',
  (kind) => {
    let pair: PlatformPair;

    beforeAll(async () => {
      pair = await startPair(kind, { SANDBOX_PROVIDER: 'bwrap' });
    }, 120_000);

    afterAll(async () => {
      await pair?.close();
    });

    it("cannot write on the host outside the thread's sandbox", async () => {
      const outside = join(scripts, `escaped-${kind}.txt`);
      const model = await scriptedModel(scripts, `escape-${kind}`, [
        shell(`echo out > ${outside}; echo in > inside.txt`),
        submit(),
      ]);
      const out = await runScenario(pair, { prompt: 'write two files', options: { model } });

      expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
      expect(out.traj.info.submission).toContain('inside.txt');
      await expect(access(outside)).rejects.toThrow(/ENOENT/);
    }, 180_000);
  },
  { isolation: true },
);
