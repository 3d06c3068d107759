import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../e2e/support/processes.js';
import { GitHubWorld } from '../../e2e/support/github-world.js';
import { ChaosRun } from './harness/chaos-run.js';
import { JetStreamAdmin } from './harness/jetstream-admin.js';
import { NatsServer } from './harness/nats-server.js';
import { Stage } from './harness/stage.js';
import { Ledger } from './ledger.js';
import type { ChaosProfile } from './profiles.js';
import type { ScenarioContext } from './scenarios/context.js';
import { hostileWorkspaces } from './scenarios/hostile-workspaces.js';
import { natsKilledDuringBurst, postgresCutDuringBurst } from './scenarios/outage-burst.js';
import { fuzzedWebhooks, poisonMessages } from './scenarios/poison-and-fuzz.js';
import { runnerKilled } from './scenarios/runner-kill.js';
import { senderRetries } from './scenarios/sender-retries.js';
import { ScriptedAgent } from './scripted-agent.js';
import { GITHUB_REPOSITORY, SENDER_SETTINGS } from './senders.js';

/** Where the table and the services' logs of the last run of each profile are kept. */
const OUT = join(repoRoot, 'tmp', 'chaos');

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');

/**
 * The chaos suite: the built services as processes on the run's own nats-server and a fresh
 * PostgreSQL database, put through each scenario in turn. Two platforms, one after the other:
 * the intake (three ingress and dispatch, no runner, so every trigger's run is counted, not
 * executed) for scenarios 1, 3, 4 and 5; then the runs (ingress, dispatch, the agent runner and
 * the sandbox broker against a fake GitHub and a scripted model) for 2 and 6. Prints one table
 * at the end and fails when anything was lost, ran twice or broke another promise.
 */
export function chaosSuite(profile: ChaosProfile): void {
  describe(`chaos suite, ${profile.name} profile`, () => {
    const ledger = new Ledger();
    let run: ChaosRun;
    let nats: NatsServer;
    const startedAt = Date.now();
    const loadAtStart = load();

    beforeAll(async () => {
      run = await ChaosRun.open();
      nats = await NatsServer.start(await run.subdir('nats'), run.marker);
    });

    afterAll(async () => {
      await nats?.stop();
      await run?.removeFiles();
      const report = [
        `chaos ${profile.name}: ${Math.round((Date.now() - startedAt) / 1000)} s on ${cpus().length} cores, load average ${loadAtStart} at start, ${load()} at the end`,
        '',
        ledger.render(),
        '',
      ].join('\n');
      process.stdout.write(`\n${report}`);
      await mkdir(OUT, { recursive: true });
      await writeFile(join(OUT, `${profile.name}.txt`), report);
    });

    const started = new Set<string>();
    const completed = new Set<string>();
    /** Runs one scenario; one that throws leaves a finding with its error and the logs' tail. */
    const scenario = (name: string, body: () => Promise<void>, stage: () => Stage | undefined) =>
      it(name, async () => {
        started.add(name);
        try {
          await body();
          completed.add(name);
        } catch (error) {
          const logs = stage()?.platform.logs().split('\n').slice(-60).join('\n') ?? '';
          ledger.finding(name, `did not complete: ${String(error)}`);
          throw new Error(`${String(error)}\n${logs}`, { cause: error });
        }
      });

    describe('intake: three ingress and dispatch', () => {
      let stage: Stage | undefined;
      let context: ScenarioContext;

      beforeAll(async () => {
        stage = await Stage.start(
          run,
          nats,
          'intake',
          { ingress: profile.ingressReplicas, dispatch: profile.dispatchReplicas },
          SENDER_SETTINGS,
        );
        const admin = await JetStreamAdmin.open(nats.url, stage.namespace);
        context = { profile, ledger, nats, stage, admin };
      });

      afterAll(async () => {
        await context?.admin.close();
        await stage?.stop(join(OUT, `${profile.name}-intake.log`));
      });

      const current = () => stage;
      scenario(
        '1. sender retries across three ingress, and past the duplicate window',
        () => senderRetries(context),
        current,
      );
      scenario('5. poison messages on the subjects', () => poisonMessages(context), current);
      scenario('5. fuzzed webhook bodies and headers', () => fuzzedWebhooks(context), current);
      for (const cutMs of profile.postgresCutsMs) {
        scenario(
          `4. PostgreSQL cut for ${cutMs / 1000} s during a burst`,
          () => postgresCutDuringBurst(context, cutMs),
          current,
        );
      }
      scenario(
        '3. nats-server kill -9 during a burst',
        () => natsKilledDuringBurst(context),
        current,
      );
    });

    describe('runs: ingress, dispatch, agent runner, sandbox broker', () => {
      let stage: Stage | undefined;
      let context: ScenarioContext;
      let fake: FakeLlmServer;
      let agent: ScriptedAgent;
      let world: GitHubWorld;

      beforeAll(async () => {
        fake = await startFakeOpenAi();
        agent = new ScriptedAgent(fake);
        const repository = `${GITHUB_REPOSITORY.owner}/${GITHUB_REPOSITORY.name}`;
        world = new GitHubWorld(await run.subdir('github'), [repository]);
        stage = await Stage.start(
          run,
          nats,
          'runs',
          { ingress: 1, dispatch: 1, 'sandbox-broker': 1, 'agent-runner': 1 },
          {
            ...SENDER_SETTINGS,
            ...(await world.start()),
            TRUSTED_AUTHORS: `github:octocat`,
            CARAVEL_MODEL: 'openai-compatible:chaos-model',
            OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
            SANDBOX_ROOT: await run.subdir('sandboxes'),
            LOG_LEVEL: 'info',
          },
        );
        const admin = await JetStreamAdmin.open(nats.url, stage.namespace);
        context = { profile, ledger, nats, stage, admin };
      });

      afterAll(async () => {
        await context?.admin.close();
        await stage?.stop(join(OUT, `${profile.name}-runs.log`));
        await world?.close();
        await fake?.close();
      });

      const current = () => stage;
      scenario(
        '2. kill -9 of the agent runner mid-run',
        () => runnerKilled(context, agent, profile.runnerKills),
        current,
      );
      scenario(
        '6. hostile workspaces through a run',
        async () =>
          hostileWorkspaces(context, agent, {
            markers: await run.subdir('markers'),
            scratch: await run.subdir('scratch'),
          }),
        current,
      );
    });

    it('lost nothing acknowledged, ran nothing twice, broke no other promise', () => {
      const { lost, duplicateRuns } = ledger.totals();
      const incomplete = [...started].filter((name) => !completed.has(name));
      expect({ lost, duplicateRuns, findings: ledger.findings, incomplete }).toEqual({
        lost: 0,
        duplicateRuns: 0,
        findings: [],
        incomplete: [],
      });
    });
  });
}
