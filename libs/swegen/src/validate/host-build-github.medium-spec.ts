import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapAvailable } from '@caravel/sandbox';
import { listenOnLoopback } from '@caravel/sandbox/testing';
import { serveGitHttpBackend, testEnvironment } from '@caravel/testing';
import type { BuildEgressOptions } from './build-egress.js';
import { buildOnHost } from './host-build.js';

// A merged PR's Dockerfile may clone a public GitHub repository (git clone, pip install git+...).
// The build reaches github.com through its egress proxy: anonymously, to read only.
const bwrapMissing = !bwrapAvailable();
const describeBwrap = bwrapMissing && !testEnvironment.CI ? describe.skip : describe;

function git(args: string[], cwd?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A bare `acme/lib.git` under `root` with one commit, that accepts pushes from anyone. */
function publicRepository(root: string): string {
  const bare = join(root, 'acme', 'lib.git');
  const seed = join(root, 'seed');
  git(['init', '-q', '--bare', '-b', 'main', bare]);
  git(['-C', bare, 'config', 'http.receivepack', 'true']);
  git(['init', '-q', '-b', 'main', seed]);
  execFileSync('sh', ['-c', 'echo "print(1)" > lib.py'], { cwd: seed });
  git(['add', '.'], seed);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'lib'], seed);
  git(['push', '-q', bare, 'main'], seed);
  return bare;
}

/** What the stand-in GitHub was asked: method, path and Authorization of each request. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

/** A stand-in github.com on 127.0.0.1, its repositories under `dir`, and what it was asked. */
interface StandIn {
  readonly dir: string;
  /** `acme/lib.git`, which accepts pushes from anyone. */
  readonly bare: string;
  readonly server: Server;
  readonly url: string;
}

async function startStandIn(seen: Seen[]): Promise<StandIn> {
  const dir = await mkdtemp(join(tmpdir(), 'caravel-build-github-'));
  await chmod(dir, 0o755);
  const bare = publicRepository(join(dir, 'github'));
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    const { method = '', headers } = request;
    seen.push({ method, path, authorization: headers.authorization });
    if (path.includes('/archive/')) response.end('archive of acme/lib\n');
    else serveGitHttpBackend(request, response, join(dir, 'github'), 'anyone');
  });
  return { dir, bare, server, url: `http://127.0.0.1:${await listenOnLoopback(server)}` };
}

describeBwrap('the host build phase and public GitHub repositories', () => {
  const seen: Seen[] = [];
  let builds = 0;
  let github: StandIn;

  beforeAll(async () => {
    github = await startStandIn(seen);
  });

  afterAll(async () => {
    if (!github) return;
    await new Promise((resolve) => github.server.close(resolve));
    await rm(github.dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    seen.length = 0;
  });

  /** Runs `command` as a build step; its exit status and output, and the build log. */
  async function inBuild(command: string, egress: BuildEgressOptions = {}) {
    builds += 1;
    const taskDir = join(github.dir, `task-${builds}`);
    await mkdir(join(taskDir, 'environment'), { recursive: true });
    const run = `RUN (${command}) > /app/out.txt 2>&1; echo $? > /app/status.txt`;
    await writeFile(join(taskDir, 'environment', 'Dockerfile'), `WORKDIR /app\n${run}\n`);
    const workDir = join(github.dir, `build-${builds}`);
    await mkdir(workDir, { mode: 0o755 });
    await chmod(workDir, 0o755);
    const built = await buildOnHost({
      taskDir,
      repoPath: taskDir,
      workDir,
      timeoutMs: 60_000,
      egress: { upstreamOverrides: { 'github.com': github.url }, ...egress },
    });
    return {
      status: Number(await readFile(join(built.appDir, 'status.txt'), 'utf8')),
      output: await readFile(join(built.appDir, 'out.txt'), 'utf8'),
      log: await readFile(built.logFile, 'utf8'),
    };
  }

  it('clones a public repository over https://github.com, with no credential sent', async () => {
    const cloned = await inBuild(
      'git clone -q https://github.com/acme/lib.git /app/lib && cat /app/lib/lib.py',
    );
    expect(cloned).toMatchObject({ status: 0, output: 'print(1)\n' });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((request) => request.authorization)).toEqual(seen.map(() => undefined));
    expect(seen.every((request) => !request.path.includes('receive-pack'))).toBe(true);
  });

  it('downloads an archive without the Authorization the build step sent', async () => {
    const fetched = await inBuild(
      "curl -sS --fail -H 'Authorization: Bearer chosen-by-the-build' " +
        'http://github.com/acme/lib/archive/main.tar.gz',
    );
    expect(fetched).toMatchObject({ status: 0, output: 'archive of acme/lib\n' });
    expect(seen).toEqual([
      { method: 'GET', path: '/acme/lib/archive/main.tar.gz', authorization: undefined },
    ]);
  });

  it('refuses a push: it never reaches GitHub, and the repository is unchanged', async () => {
    const before = git(['-C', github.bare, 'rev-parse', 'main']);
    const pushed = await inBuild(
      'git clone -q https://github.com/acme/lib.git /app/lib && cd /app/lib && ' +
        'git -c user.name=b -c user.email=b@b commit -q --allow-empty -m build && ' +
        'git push origin HEAD:main',
    );
    expect(pushed.status).not.toBe(0);
    expect(pushed.output).toContain('GitHub is read-only here');
    expect(pushed.log).toContain('### egress proxy refused GET github.com');
    expect(seen.some((request) => request.path.includes('receive-pack'))).toBe(false);
    expect(git(['-C', github.bare, 'rev-parse', 'main'])).toBe(before);
  });

  it('refuses GitHub too when the allowlist is none', async () => {
    const cloned = await inBuild('git clone -q https://github.com/acme/lib.git /app/lib', {
      allowlist: [],
    });
    expect(cloned.status).not.toBe(0);
    expect(cloned.output).toContain('has no GitHub repository');
    expect(seen).toEqual([]);
  });
});
