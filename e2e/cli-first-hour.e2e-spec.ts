// A newcomer's first commands, run as they would run them: the built CLI, a clean environment.
// None of these boots the platform: each answer comes before the long start, or instead of it.
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caravel, CliProcess, STACK_FRAME, userEnv } from './support/cli.js';
import { buildWorkspace, freePort, repoRoot } from './support/processes.js';

const THREAD = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';

describe('caravel in a newcomer’s first hour', () => {
  let scratch: string;

  beforeAll(async () => {
    buildWorkspace();
    scratch = await mkdtemp(join(tmpdir(), 'caravel-first-hour-'));
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('prints the usage for caravel, -h, --help and help, and starts nothing', async () => {
    const cwd = await mkdtemp(join(scratch, 'cwd-'));
    for (const args of [[], ['-h'], ['--help'], ['help']]) {
      const { code, stdout, stderr } = await caravel(args, { cwd });
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(stdout).toMatch(/^Usage: caravel <command> \[options\]/);
      expect(stdout).toContain('fake-model');
      expect(stdout).not.toContain('loading the services');
    }
    expect(await readdir(cwd)).toEqual([]);
  });

  it('prints how to use trajectory, replay and attach when they get no arguments', async () => {
    for (const [command, reason] of [
      ['trajectory', 'needs a subcommand: trajectory export THREAD'],
      ['replay', 'needs a THREAD id or a FILE.traj'],
      ['attach', 'needs a THREAD id'],
    ] as const) {
      const { code, stderr } = await caravel([command]);
      expect(code).toBe(2);
      expect(stderr).toContain(`caravel ${command}: ${reason}`);
      expect(stderr).toContain(`Usage: caravel ${command}`);
    }
  });

  it('names the option and the value it refuses, and refuses unknown options', async () => {
    const port = await caravel(['start', '--port', 'abc']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain(
      "caravel start: --port must be a port number (0-65535), not 'abc'",
    );
    const typo = await caravel(['start', '--prot', '3302']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "caravel start: unknown option '--prot'; known options: --data-dir, --port, --help",
    );
    for (const { stderr } of [port, typo]) expect(stderr).not.toMatch(STACK_FRAME);
  });

  it('says that a thread id is not one instead of querying the database with it', async () => {
    const { code, stderr } = await caravel(['trajectory', 'export', 'not-a-uuid']);
    expect(code).toBe(2);
    expect(stderr).toContain("caravel trajectory: 'not-a-uuid' is not a thread id");
    expect(stderr).not.toMatch(STACK_FRAME);
  });

  it('reports a port in use before the long boot, without a stack', async () => {
    const held = await listening(await freePort());
    const dataDir = join(scratch, 'busy');
    try {
      const { code, stderr } = await caravel(
        ['start', '--port', String(held.port), '--data-dir', dataDir],
        { env: userEnv({ CARAVEL_MODEL: 'scripted:examples/fix-sample.script.yaml' }) },
      );
      expect(code).toBe(1);
      expect(stderr).toContain(`caravel start: port ${held.port} on 127.0.0.1 is already in use`);
      expect(stderr).toContain('pass --port N');
      expect(stderr).not.toMatch(STACK_FRAME);
      expect(await readdir(scratch)).not.toContain('busy');
    } finally {
      held.server.close();
    }
  });

  it('stops the start at once, naming the variable, when the model has no key', async () => {
    const dataDir = join(scratch, 'keyless');
    const { code, stderr } = await caravel(
      ['start', '--port', String(await freePort()), '--data-dir', dataDir],
      { env: userEnv({ CARAVEL_MODEL: 'anthropic:claude-sonnet-4-5' }) },
    );
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'caravel start: CARAVEL_MODEL is anthropic:claude-sonnet-4-5, whose provider needs ANTHROPIC_API_KEY: set ANTHROPIC_API_KEY, or choose another model',
    ]);
    expect(await readdir(scratch)).not.toContain('keyless');
  });

  it('takes the README’s real-model example and checks the sandbox before booting', async () => {
    const emptyPath = await mkdtemp(join(scratch, 'bin-'));
    const { code, stderr } = await caravel(
      ['run', '--repo', 'examples/sample-repo', '--model', 'anthropic:claude-sonnet-4-5', 'fix it'],
      { env: userEnv({ ANTHROPIC_API_KEY: 'sk-test', PATH: emptyPath }) },
    );
    expect(code).toBe(1);
    expect(stderr).not.toContain('unknown model');
    expect(stderr).toContain('caravel run: the bwrap sandbox needs bwrap and socat');
    expect(stderr).toContain('apt-get install bubblewrap socat, or set SANDBOX_PROVIDER=local');
  });

  it('suggests --sandbox local or installing bubblewrap when replay has no bwrap', async () => {
    const traj = join(repoRoot, 'libs/agent/src/models/fixtures/swe-agent-run.traj');
    const { code, stderr } = await caravel(['replay', traj], {
      env: userEnv({ PATH: await mkdtemp(join(scratch, 'bin-')) }),
    });
    expect(code).toBe(1);
    expect(stderr).toContain(
      'caravel replay: the bwrap sandbox needs bwrap, not installed here: apt-get install bubblewrap, or pass --sandbox local',
    );
  });

  it('attaches with DASHBOARD_TOKEN and says which variable or flag a 401 wants', async () => {
    const dashboard = await fakeDashboard();
    try {
      const withToken = await caravel(['attach', THREAD, '--url', dashboard.url], {
        env: userEnv({ DASHBOARD_TOKEN: 'token-from-the-environment' }),
        input: 'please look at the README too\n/quit\n',
      });
      expect(withToken.code).toBe(0);
      expect(dashboard.actions.map((h) => h.authorization)).toEqual([
        'Bearer token-from-the-environment',
      ]);
      expect(withToken.stdout).toContain(
        "refused: a valid dashboard token is required (Authorization: Bearer …); the dashboard refused this token: give it the dashboard's own DASHBOARD_TOKEN (DASHBOARD_TOKEN=… or --token)",
      );
      const without = await caravel(['attach', THREAD, '--url', dashboard.url], {
        input: 'hello\n/quit\n',
      });
      expect(without.stdout).toContain(
        'refused: a valid dashboard token is required (Authorization: Bearer …); the dashboard wants its token: set DASHBOARD_TOKEN, or pass --token',
      );
    } finally {
      dashboard.server.close();
    }
  });

  it('serves a script as an OpenAI-compatible model with caravel fake-model', async () => {
    const port = await freePort();
    const fake = new CliProcess(
      ['fake-model', '--port', String(port), '--script', 'examples/fix-sample.script.yaml'],
      { env: userEnv() },
    );
    try {
      const baseUrl = (await fake.waitFor(/listening on (\S+), answering/))[1] ?? '';
      expect(baseUrl).toBe(`http://127.0.0.1:${port}/v1`);
      expect(fake.stdout).toContain(
        `CARAVEL_MODEL=openai-compatible:fake OPENAI_COMPATIBLE_BASE_URL=${baseUrl}`,
      );
      // The answer follows the conversation: none given yet, then one.
      const user = { role: 'user', content: 'fix slugify' };
      const first = await toolCall(baseUrl, [user]);
      const second = await toolCall(baseUrl, [user, { role: 'assistant', content: 'looking' }]);
      expect(first).toEqual({
        name: 'execute',
        arguments: '{"command":"cat src/slugify.js && npm test"}',
      });
      expect(second.name).toBe('edit_file');
      await fake.waitFor(/call 2: edit_file/);
      fake.signal('SIGTERM');
      expect(await fake.exited).toBe(0);
    } finally {
      fake.kill();
    }
  });

  it('passes npm start -- help through to caravel help', () => {
    const started = spawnSync(process.execPath, ['tools/scripts/start.mjs', 'help'], {
      cwd: repoRoot,
      env: userEnv(),
      encoding: 'utf8',
    });
    expect(started.status).toBe(0);
    expect(started.stdout).toContain('Usage: caravel <command> [options]');
    expect(started.stdout).not.toContain('loading the services');
  });
});

/** The first tool call the model at `baseUrl` answers `messages` with. */
async function toolCall(
  baseUrl: string,
  messages: object[],
): Promise<{ name: string; arguments: string }> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake', messages }),
  });
  const body = (await response.json()) as {
    choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[];
  };
  const call = body.choices[0]?.message.tool_calls[0]?.function;
  if (!call) throw new Error(`no tool call in ${JSON.stringify(body)}`);
  return call;
}

async function listening(port: number): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port };
}

/** A dashboard that knows one thread and refuses every action with a 401, recording the headers. */
async function fakeDashboard() {
  const actions: IncomingHttpHeaders[] = [];
  const server = createHttpServer((req, res) => {
    req.resume();
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST') {
      actions.push(req.headers);
      res.statusCode = 401;
      const message = 'a valid dashboard token is required (Authorization: Bearer …)';
      return res.end(JSON.stringify({ error: { code: 'UNAUTHENTICATED', message } }));
    }
    res.end(req.url?.includes('/events') ? '[]' : JSON.stringify({ id: THREAD }));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, actions, url: `http://127.0.0.1:${port}` };
}
