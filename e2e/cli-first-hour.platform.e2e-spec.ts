// The newcomer's commands that boot the embedded platform, through the built CLI: what the first
// start says while it works, and what `caravel run` leaves behind when it fails or is stopped.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliProcess, STACK_FRAME, userEnv } from './support/cli.js';
import { buildWorkspace } from './support/processes.js';

const TASK = 'slugify leaves a trailing dash; make the tests pass';

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

describe('caravel start and run, as a newcomer meets them', () => {
  let scratch: string;
  const started: CliProcess[] = [];
  const cli = (...args: ConstructorParameters<typeof CliProcess>) => {
    const process = new CliProcess(...args);
    started.push(process);
    return process;
  };

  afterEach(() => {
    for (const process of started.splice(0)) process.kill();
  });

  beforeAll(async () => {
    buildWorkspace();
    scratch = await mkdtemp(join(tmpdir(), 'caravel-first-hour-'));
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('says what the first start is doing until it is ready', async () => {
    const dataDir = join(scratch, 'first-start');
    // A machine's very first start: nothing in the home's cache (~/.cache/caravel) yet.
    const home = join(scratch, 'first-home');
    const start = cli(['start', '--port', '0', '--data-dir', dataDir], {
      env: userEnv({ CARAVEL_MODEL: 'scripted:examples/fix-sample.script.yaml', HOME: home }),
    });
    const [, url] = await start.waitFor(/caravel: ready: listening on (\S+) \(data in /);
    const response = await fetch(`${url}/health/live`);
    start.signal('SIGTERM');
    expect(await start.exited).toBe(0);
    expect(response.status).toBe(200);
    const said = start.stdout.split('\n').filter((line) => line.startsWith('caravel: '));
    expect(said).toEqual([
      'caravel: loading the services',
      `caravel: creating the database in ${dataDir}/pgdata (first start only; the first on this machine takes about 15 s)`,
      'caravel: applying database migrations',
      'caravel: starting the services (ingress, dispatch, agent-runner, reviewer, analyzer, sandbox-broker, dashboard)',
      `caravel: ready: listening on ${url} (data in ${dataDir})`,
    ]);
  });

  it('ends a failed run with its reason and leaves no temporary data', async () => {
    const script = join(scratch, 'refused.script.yaml');
    await writeFile(script, 'responses:\n  - error: { status: 401, message: invalid x-api-key }\n');
    const run = cli(
      ['run', '--repo', 'examples/sample-repo', '--model', `scripted:${script}`, TASK],
      { env: userEnv({ SANDBOX_PROVIDER: 'local' }) },
    );
    const { code, stdout, stderr } = await run.result();
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toContain('  … step 0: calling the model');
    expect(lines.at(-1)).toMatch(
      /^run failed \(exit_error\): .*scripted model call failed \(HTTP 401\): invalid x-api-key/,
    );
    const dataDir = /\(data in (\S+)\)/.exec(stdout)?.[1];
    expect(dataDir).toMatch(/caravel-run-/);
    expect(await exists(dataDir ?? '')).toBe(false);
    // examples/sample-repo is not a repository of its own: the copy of a failed run is removed.
    const copy = /working on a copy at (\S+)/.exec(stdout)?.[1] ?? '';
    expect(copy).toMatch(/caravel-repo-/);
    expect(await exists(copy)).toBe(false);
    expect(stdout + stderr).not.toMatch(STACK_FRAME);
  });

  it('removes its temporary data when stopped with Ctrl-C in the middle of a command', async () => {
    const script = join(scratch, 'slow.script.yaml');
    const command = 'echo started the long command; sleep 20';
    await writeFile(
      script,
      `responses:\n  - tool_calls: [{ name: execute, args: { command: '${command}' } }]\n`,
    );
    const run = cli(
      ['run', '--repo', 'examples/sample-repo', '--model', `scripted:${script}`, TASK],
      { env: userEnv({ SANDBOX_PROVIDER: 'local', SHUTDOWN_GRACE_MS: '2000' }) },
    );
    await run.waitFor(/… step 0: running a command/);
    const dataDir = /\(data in (\S+)\)/.exec(run.stdout)?.[1] ?? '';
    expect(await exists(dataDir)).toBe(true);
    run.signal('SIGINT');
    const { code, stderr } = await run.result();
    expect(code).toBe(130);
    expect(stderr).toContain('caravel run: stopped; its temporary data was removed');
    expect(await exists(dataDir)).toBe(false);
  });
});
