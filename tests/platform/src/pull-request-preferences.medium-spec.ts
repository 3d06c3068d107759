import { expect, it } from '@jest/globals';
import { describeEachPair } from './harness/platform-pairs.js';
import {
  scenarioOutcome,
  startScenarioFrom,
  type ScenarioOutcome,
} from './harness/scenario-run.js';
import { fakeOpenAiForFile, pairForSuite, SLOW_RUN_TIMEOUT_MS } from './harness/suite-fixtures.js';

// The requester's pull-request preferences end to end on both pairs, set through the dashboard:
// a person who prefers ready pull requests gets one that is not a draft (and, under their "always
// create PRs" policy, cannot submit before it is opened); everyone else gets a draft.
const TOKEN = 'pull-request-preferences-token-0123';
const MODEL = { model: 'openai-compatible:pr-model' };
const FIX = { path: 'src/slugify.js', content: 'export const slugify = (s) => s.trim();\n' };
const PUBLISH = { commit_message: 'Trim input', title: 'Trim input', body: 'Trims it.' };

const fake = fakeOpenAiForFile();

const call = (name: string, args: Record<string, unknown> = {}) => ({
  toolCalls: [{ name, args }],
});

/** The observations of the steps that called `tool`. */
function observationsOf(outcome: ScenarioOutcome, tool: string): string[] {
  return outcome.traj.trajectory
    .filter((step) => step.action.includes(tool))
    .map((step) => step.observation);
}

await describeEachPair('pull requests, as the person who asked wants them', (kind) => {
  const pair = pairForSuite(kind, () => ({
    OPENAI_COMPATIBLE_BASE_URL: fake().baseUrl,
    DASHBOARD_TOKEN: TOKEN,
  }));

  const putProfile = (identity: string, body: unknown) =>
    fetch(`${pair().host.url}/api/profiles/${identity}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
    });

  /** A task from `author` on a fresh thread, run to its end. */
  async function runFrom(author: string): Promise<ScenarioOutcome> {
    const started = await startScenarioFrom(
      pair(),
      { prompt: 'Make slugify trim its input.', options: MODEL },
      { source: 'synthetic', author },
    );
    return scenarioOutcome(pair(), started, started.runId, SLOW_RUN_TIMEOUT_MS);
  }

  it(
    'opens a ready pull request for a person who prefers it, after their policy refused an early submit',
    async () => {
      const author = `ready-${kind}`;
      const refused = await putProfile(`synthetic:${author}`, { draftPullRequests: 'no' });
      expect(refused.status).toBe(400);
      const saved = await putProfile(`synthetic:${author}`, {
        draftPullRequests: false,
        alwaysCreatePullRequests: true,
      });
      expect(saved.status).toBe(200);
      fake().enqueue(
        call('write_file', FIX),
        call('submit'),
        call('commit_and_open_pr', PUBLISH),
        call('submit'),
      );

      const out = await runFrom(author);

      expect(out.run).toMatchObject({ exitStatus: 'submitted' });
      const [early, accepted] = observationsOf(out, 'submit');
      expect(early).toMatch(/submit was not run: the person who asked always wants a pull request/);
      expect(accepted).not.toMatch(/was not run/);
      const [published] = observationsOf(out, 'commit_and_open_pr');
      // The suite's repository is a local path: no pull requests there, so the pushed branch
      // stands for the one asked for, and the observation names no number.
      expect(published).toMatch(/stands for the pull request \(ready for review\)/);
      expect(published).not.toMatch(/draft|#\d/);
      expect(out.diff).toContain('s.trim()');
    },
    2 * SLOW_RUN_TIMEOUT_MS,
  );

  it(
    'opens a draft for a person without a preference',
    async () => {
      fake().enqueue(call('write_file', FIX), call('commit_and_open_pr', PUBLISH), call('submit'));

      const out = await runFrom(`default-${kind}`);

      expect(out.run).toMatchObject({ exitStatus: 'submitted' });
      expect(observationsOf(out, 'commit_and_open_pr')[0]).toMatch(
        /stands for the draft pull request: /,
      );
      expect(out.diff).toContain('s.trim()');
    },
    2 * SLOW_RUN_TIMEOUT_MS,
  );
});
