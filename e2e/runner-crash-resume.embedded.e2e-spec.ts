import { startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrashResumeScript, threadWorkspace } from './support/crash-resume.js';
import { GitHubWorld } from './support/github-world.js';
import { buildWorkspace, freePort, ServiceProcess } from './support/processes.js';
import { deliverGithubMention } from './support/signed-webhook.js';
import { eventually, type RunView } from './support/walking-skeleton.js';

const SECRET = 'e2e-crash-webhook-secret';

// The whole embedded platform in one `caravel start` process (embedded bus + PGlite on a data
// directory), killed with SIGKILL while a command runs, then started again on the same data: the
// bus redelivers the unacked start command and the run resumes from its last checkpoint.
describe('caravel start killed mid-run (kill -9) and started again on the same data directory', () => {
  let processes: ServiceProcess[] = [];
  let fake: FakeLlmServer;
  let world: GitHubWorld | undefined;
  let dir: string | undefined;
  let env: Record<string, string>;

  /** One `caravel start` (the CLI's default command) on the shared data directory. */
  async function caravelStart(): Promise<ServiceProcess> {
    const caravel = new ServiceProcess('cli', await freePort(), env);
    processes.push(caravel);
    // Loading every service in one process takes a while on a busy machine.
    await eventually(async () => {
      const response = await fetch(`${caravel.url}/health/ready`);
      return response.status === 200 ? true : undefined;
    }, 180_000).catch((error: unknown) => {
      throw new Error(`caravel start never became ready: ${String(error)}\n${caravel.log}`);
    });
    return caravel;
  }

  beforeAll(() => {
    buildWorkspace();
  });

  // A world per attempt: its own data directory, sandboxes, fake GitHub and fake provider.
  beforeEach(async () => {
    fake = await startFakeOpenAi();
    dir = await mkdtemp(join(tmpdir(), 'cv-kill9-'));
    await chmod(dir, 0o755); // the sandbox user must reach the sandboxes inside
    // The mention's repository, on a fake GitHub the App is installed on (no App: no clone).
    world = new GitHubWorld(dir, ['acme/widgets']);
    env = {
      ...(await world.start()),
      CARAVEL_DATA_DIR: join(dir, 'data'),
      SANDBOX_ROOT: join(dir, 'sandboxes'),
      LOG_LEVEL: 'info',
      GITHUB_WEBHOOK_SECRET: SECRET,
      CARAVEL_MODEL: 'openai-compatible:crash-test-model',
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    };
  });

  afterEach(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    processes = [];
    await fake.close();
    await world?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('resumes the run after a restart with no completed model or tool call repeated', async () => {
    const script = new CrashResumeScript(fake);
    const first = await caravelStart();
    const threadId = await deliverGithubMention(
      first.url,
      SECRET,
      '@caravel write three lines, slowly',
    );
    const workspace = threadWorkspace(env['SANDBOX_ROOT']!, threadId);
    await script.slowCommandRunning(workspace, () => first.log);
    expect(await first.kill()).toBe('SIGKILL');
    // The provider restarts too and numbers its ids from 1 again: the resumed run's answers come
    // under the ids of the answers before the crash (keyed on Caravel's own, nothing is lost).
    await fake.restart();

    const second = await caravelStart();
    const logs = () => processes.map((p) => `--- ${p.name}:${p.port}\n${p.log}`).join('\n');
    const ended = new AbortController();
    const resumed = script.finishSlowCommandOnResume(workspace, logs, ended.signal);
    const run = await eventually(async () => {
      const response = await fetch(`${second.url}/api/threads/${threadId}`);
      if (response.status !== 200) return undefined;
      const detail = (await response.json()) as { runs: RunView[] };
      return detail.runs.find((r) => !['queued', 'running'].includes(r.status));
    }, 300_000)
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\n${logs()}`);
      })
      .finally(() => ended.abort());
    await resumed;
    expect({ ...run, logs: run.status === 'completed' ? '' : logs() }).toMatchObject({
      status: 'completed',
      exitStatus: 'submitted',
      logs: '',
    });
    await script.expectNothingRepeated(
      workspace,
      async () => (await fetch(`${second.url}/api/threads/${threadId}/events`)).json(),
      logs,
    );
  }, 600_000);
});
