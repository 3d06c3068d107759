import { RunOutputV1, RunStepV1, type Envelope } from '@caravel/contracts';
import { eventually } from '../../../e2e/support/walking-skeleton.js';
import { sendTracked, tracked, type TrackedRequest } from '../intake.js';
import type { RunnerKillPoint } from '../profiles.js';
import { call, type ScriptedAgent } from '../scripted-agent.js';
import { GithubMention, is2xx } from '../senders.js';
import type { ScenarioContext } from './context.js';

const SCENARIO = '2 agent-runner kill -9';
const TAG = 'resume';
/** What the slow command prints first: the runner is killed once it shows in the live output. */
const SLOW_STARTED = 'CHAOS-SLOW-STARTED';
/** What `calls.log` holds when every command ran to completion exactly once. */
const EACH_ONCE = 'one\ntwo\nthree';

/** The turn (model call) that asks for the slow command. */
const SLOW_TURN = 1;

const SCRIPT = [
  call('execute', { command: 'echo one >> calls.log' }),
  call('execute', { command: `echo ${SLOW_STARTED}; sleep 8; echo two >> calls.log` }),
  call('execute', { command: 'echo three >> calls.log && cat calls.log' }),
  call('submit', {}),
];

const outputs = (events: Envelope[]) =>
  events.filter((e) => e.type === RunOutputV1.type).map((e) => RunOutputV1.parse(e).data.text);

/** What the last `cat calls.log` printed, from the run's steps: one line per completed command. */
function callsLog(events: Envelope[]): { words: string | undefined; printed: string } {
  const printed = events
    .filter((e) => e.type === RunStepV1.type)
    .flatMap((e) => RunStepV1.parse(e).data.results)
    .map((r) => r.content)
    .filter((content) => content.includes('three'))
    .at(-1);
  // The output may come back escaped (inside JSON): the words, in order, are what counts.
  return {
    words:
      printed === undefined
        ? undefined
        : [...printed.replace(/\\n/g, '\n').matchAll(/\b(one|two|three)\b/g)]
            .map((m) => m[1])
            .join('\n'),
    printed: printed?.slice(0, 300) ?? '(no cat calls.log step)',
  };
}

/**
 * Scenario 2 (T8): one run, the agent runner killed with SIGKILL while the model call that asks
 * for the slow command is in flight, and again while that command runs (a fresh runner is started
 * each time and picks the run up once its start command comes back). The run must finish once,
 * repeating no completed model call (counted at the fake model) and no completed command (each
 * command appends to `calls.log`, which the last command prints).
 */
export async function runnerKilled(
  context: ScenarioContext,
  agent: ScriptedAgent,
  kills: readonly RunnerKillPoint[],
): Promise<void> {
  const { stage, ledger, profile } = context;
  agent.script(TAG, SCRIPT);
  const held = kills.includes('model-call') ? agent.holdAt(TAG, SLOW_TURN) : undefined;
  const mention = new GithubMention(`@caravel [chaos:${TAG}] write three lines, slowly`);
  const request = tracked(mention.threadId, () => mention.request());
  await sendTracked(request, stage.platform.url('ingress'));
  const started = Date.now();
  if (held) {
    await held;
    await stage.platform.killAndReplace('agent-runner');
    ledger.note(SCENARIO, `killed during the model call ${Date.now() - started} ms in`);
  }
  if (kills.includes('command')) {
    await eventually(async () => {
      const text = outputs(await stage.observer.events(mention.threadId)).join('');
      return text.includes(SLOW_STARTED) ? true : undefined;
    }, profile.settleMs);
    await stage.platform.killAndReplace('agent-runner');
    ledger.note(SCENARIO, `killed during the slow command ${Date.now() - started} ms in`);
  }
  await stage.observer.awaitEnded([mention.threadId], profile.settleMs);
  ledger.note(SCENARIO, `the run ended ${Date.now() - started} ms in`);
  await account(context, agent, request);
}

/** The run's record: finished once, no completed model call or command made again. */
async function account(
  context: ScenarioContext,
  agent: ScriptedAgent,
  request: TrackedRequest,
): Promise<void> {
  const { stage, ledger } = context;
  const runs = await stage.observer.runsOf([request.threadId]);
  const run = runs[0];
  const { words: log, printed } = callsLog(await stage.observer.events(request.threadId));
  const repeats = agent.repeatedCalls(TAG);
  ledger.note(
    SCENARIO,
    `run ${run?.status ?? 'missing'} (${run?.exitStatus ?? '-'}); model calls per turn ${JSON.stringify(agent.callsOf(TAG))}; calls.log ${JSON.stringify(log)}`,
  );
  const finished = run !== undefined && run.status !== 'queued' && run.status !== 'running';
  if (run?.status !== 'completed') {
    ledger.finding(
      SCENARIO,
      `the run did not complete: ${run?.status ?? 'no run'} ${run?.exitStatus ?? ''}`,
    );
  }
  if (repeats > 0) ledger.finding(SCENARIO, `${repeats} completed model call(s) made again`);
  const commandsTwice = finished && log !== EACH_ONCE;
  if (commandsTwice) {
    ledger.finding(
      SCENARIO,
      `commands did not each complete once: calls.log ${JSON.stringify(log)} (printed ${JSON.stringify(printed)})`,
    );
  }
  const acked = request.answers.filter(is2xx).length;
  const starts = await stage.observer.startCommands();
  const duplicateStarts = runs.reduce((n, r) => n + Math.max(0, (starts.get(r.id) ?? 0) - 1), 0);
  ledger.record({
    scenario: SCENARIO,
    sent: request.answers.length,
    acknowledged: acked,
    processed: finished ? 1 : 0,
    duplicateIgnored: 0,
    lost: acked > 0 && !finished ? 1 : 0,
    duplicateRuns:
      Math.max(0, runs.length - 1) + duplicateStarts + (repeats > 0 || commandsTwice ? 1 : 0),
  });
}
