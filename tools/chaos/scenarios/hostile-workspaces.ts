import { RunStepV1 } from '@caravel/contracts';
import { join } from 'node:path';
import {
  HOSTILE_WORKSPACES,
  hostTrapRepository,
  markersIn,
  oneHostileWorkspaceOfEachKind,
} from '../../../apps/sandbox-broker/src/testing/hostile-workspaces.js';
import { sendTracked, tracked } from '../intake.js';
import { call, type ScriptedAgent } from '../scripted-agent.js';
import { GithubMention, is2xx } from '../senders.js';
import type { ScenarioContext } from './context.js';

const SCENARIO = '6 hostile workspaces';

/** What `commit_and_open_pr` answered in the thread's run: pushed, or refused and why. */
async function publication(context: ScenarioContext, threadId: string): Promise<string> {
  const result = (await context.stage.observer.events(threadId))
    .filter((e) => e.type === RunStepV1.type)
    .flatMap((e) => RunStepV1.parse(e).data.results)
    .find((r) => r.name === 'commit_and_open_pr');
  if (!result) return 'commit_and_open_pr never answered';
  const first = result.content.replace(/\s+/g, ' ').slice(0, 100);
  return `commit_and_open_pr ${result.status}: ${first}`;
}

/**
 * Scenario 6: for each trap of HOSTILE_WORKSPACES (the sandbox broker's suite), a run whose
 * scripted model installs it in its workspace, then commits and opens a pull request (the
 * broker pushes), then submits. A marker on the host means something outside the sandbox ran
 * the agent's content: there must be none.
 */
export async function hostileWorkspaces(
  context: ScenarioContext,
  agent: ScriptedAgent,
  dirs: { markers: string; scratch: string },
): Promise<void> {
  const { stage, ledger, profile } = context;
  const hostRepo = await hostTrapRepository(
    join(dirs.scratch, 'host-repo'),
    join(dirs.markers, 'host-repo'),
  );
  const traps =
    profile.hostileWorkspaces === 'all' ? HOSTILE_WORKSPACES : oneHostileWorkspaceOfEachKind();
  const requests = traps.map((trap, i) => {
    const tag = `trap-${i}`;
    const marker = join(dirs.markers, tag);
    agent.script(tag, [
      call('execute', { command: `echo change > change.txt && ${trap.install(marker, hostRepo)}` }),
      call('commit_and_open_pr', {
        commit_message: `chaos: ${trap.name}`,
        title: `chaos: ${trap.name}`,
        body: 'A hostile workspace.',
      }),
      call('submit', {}),
    ]);
    const mention = new GithubMention(`@caravel [chaos:${tag}] ${trap.name}`);
    return tracked(mention.threadId, () => mention.request());
  });
  const url = stage.platform.url('ingress');
  await Promise.all(requests.map((r) => sendTracked(r, url)));
  const threads = requests.filter((r) => r.answers.some(is2xx)).map((r) => r.threadId);
  const runs = await stage.observer.awaitEnded(threads, profile.settleMs);
  const ended = runs.filter((r) => r.status !== 'queued' && r.status !== 'running');
  const starts = await stage.observer.startCommands();
  const markers = await markersIn(dirs.markers);
  for (const [i, trap] of traps.entries()) {
    const { threadId } = requests[i]!;
    const run = runs.find((r) => r.threadId === threadId);
    const outcome = run ? `${run.status} (${run.exitStatus ?? '-'})` : 'no run';
    ledger.note(SCENARIO, `${trap.name}: ${outcome}; ${await publication(context, threadId)}`);
  }
  ledger.note(SCENARIO, `host markers: ${markers.length}`);
  if (markers.length > 0) {
    ledger.finding(SCENARIO, `host markers ${markers.join(', ')}: a trap ran outside the sandbox`);
  }
  const endedThreads = new Set(ended.map((r) => r.threadId));
  const byThread = new Map<string, number>();
  for (const run of runs) byThread.set(run.threadId, (byThread.get(run.threadId) ?? 0) + 1);
  ledger.record({
    scenario: SCENARIO,
    sent: requests.reduce((n, r) => n + r.answers.length, 0),
    acknowledged: requests.reduce((n, r) => n + r.answers.filter(is2xx).length, 0),
    processed: endedThreads.size,
    duplicateIgnored: 0,
    lost: threads.filter((t) => !endedThreads.has(t)).length,
    duplicateRuns:
      [...byThread.values()].reduce((n, count) => n + Math.max(0, count - 1), 0) +
      runs.reduce((n, r) => n + Math.max(0, (starts.get(r.id) ?? 0) - 1), 0),
  });
}
