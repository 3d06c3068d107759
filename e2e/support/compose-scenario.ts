import { expect } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  environmentAsMounted,
  loadE2eOverride,
} from '../../tools/checks/src/deployment/compose-e2e-merge.js';
import { openHostRelay, type ComposeE2eVariables, type HostRelay } from './compose-platform.js';
import { GitHubWorld } from './github-world.js';
import { startProcessPlatform, withLogs, type Platform } from './platform.js';
import { deliverGithubMention } from './signed-webhook.js';
import { eventually, type RunView } from './walking-skeleton.js';

const SECRET = 'e2e-compose-webhook-secret';
/** The repository of `githubPayload.issueComment`, which the mention is. */
const REPOSITORY = 'acme/widgets';
const FIX = { path: 'FIX.md', content: 'fixed by caravel in compose' };

/** The scripted agent: write the fix, commit it and open the draft PR, submit. */
const SCRIPT = `responses:
  - content: Writing the fix.
    tool_calls:
      - name: execute
        args: { command: 'echo "${FIX.content}" > ${FIX.path}' }
  - content: Opening the draft PR.
    tool_calls:
      - name: commit_and_open_pr
        args: { commit_message: 'Add ${FIX.path}', title: 'Add ${FIX.path} (compose)', body: 'Fixes it.' }
  - content: Done.
    tool_calls:
      - name: submit
        args: {}
`;

/**
 * The compose e2e's one thread, whatever runs the platform: a fake GitHub App on `acme/widgets`
 * served on this machine and relayed from every interface (containers reach it through the
 * Docker bridge), the scripted model's file, and the check that a signed mention became a
 * draft PR with the fix pushed and a completed run.
 */
export class ComposeScenario {
  readonly world: GitHubWorld;
  private relay: HostRelay | undefined;

  constructor(private readonly dir: string) {
    this.world = new GitHubWorld(dir, [REPOSITORY]);
  }

  /**
   * Starts the fake GitHub and its relay; resolves with the override's variables, the fake named
   * by `host` (`host.docker.internal` from a container) and the relay's port.
   */
  async start(host: string): Promise<ComposeE2eVariables> {
    const github = await this.world.start();
    this.relay = await openHostRelay(Number(new URL(this.world.github.origin).port));
    const script = join(this.dir, 'compose.script.yaml');
    await writeFile(script, SCRIPT, { mode: 0o644 });
    return {
      CARAVEL_E2E_GITHUB_URL: `http://${host}:${this.relay.port}`,
      CARAVEL_E2E_GITHUB_APP_ID: github['GITHUB_APP_ID'] ?? '',
      CARAVEL_E2E_GITHUB_APP_PRIVATE_KEY: github['GITHUB_APP_PRIVATE_KEY'] ?? '',
      CARAVEL_E2E_WEBHOOK_SECRET: SECRET,
      CARAVEL_E2E_SCRIPT: script,
    };
  }

  /** Delivers the signed mention; the platform opens the draft PR and completes the run. */
  async expectMentionBecomesDraftPr(platform: Platform, timeoutMs: number): Promise<void> {
    const text = '@caravel please add FIX.md';
    await withLogs(platform, async () => {
      const threadId = await deliverGithubMention(platform.ingressUrl, SECRET, text);
      const pull = await this.world.draftPullOf(REPOSITORY, threadId, FIX, timeoutMs);
      expect(pull.title).toBe(`Add ${FIX.path} (compose)`);
      this.world.expectOnlyMintedTokens();
      const run = await eventually(async () => {
        const response = await fetch(`${platform.apiUrl}/api/threads/${threadId}`);
        if (response.status !== 200) return undefined;
        const detail = (await response.json()) as { runs: RunView[] };
        return detail.runs.find((r) => !['queued', 'running'].includes(r.status));
      }, timeoutMs);
      expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    });
  }

  async close(): Promise<void> {
    await this.relay?.close();
    await this.world.close();
  }
}

/**
 * The services as processes on NATS + PostgreSQL, each with what the compose override gives its
 * container (the scripted model's file read where it is mounted from). Every service reads only
 * its own schema's keys, so one environment holding all of them is the same to each, as long as
 * no two services are given one key differently: that is refused.
 */
export function startOverrideOnProcesses(
  dir: string,
  variables: ComposeE2eVariables,
): Promise<Platform> {
  const env: Record<string, string> = {};
  for (const [name, service] of Object.entries(loadE2eOverride(variables).services)) {
    for (const [key, value] of Object.entries(environmentAsMounted(service))) {
      if (env[key] !== undefined && env[key] !== value)
        throw new Error(`${name} sets ${key} unlike another service`);
      env[key] = value;
    }
  }
  return startProcessPlatform(dir, env);
}
