import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../sandbox.errors.js';
import type { Sandbox, SandboxProvider } from '../sandbox.types.js';
import { describeStreaming } from './sandbox-streaming.suite.js';

/** A provider the behaviour suite runs against. */
export interface ProviderUnderTest {
  readonly name: string;
  /** Builds the provider over a fresh root directory. */
  readonly make: (rootDir: string) => SandboxProvider;
  /** Read-only system, no network, process limit: true for bwrap, false for local. */
  readonly isolated: boolean;
  /** Why the suite cannot run here (it is then skipped with this reason), or null. */
  readonly skipReason: string | null;
  /** False for providers that cannot stream a command's output (`remote`); default true. */
  readonly streamsOutput?: boolean;
}

const OUTPUT_LIMIT = 20_000;

async function reason(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return sandboxErrorReason(error) ?? `unexpected: ${String(error)}`;
  }
  return 'resolved';
}

/** Resolves with `read`'s first answer, trying again every 50 ms for up to 15 s. */
async function eventually<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 300) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** One behaviour suite for every sandbox provider (see docs/sandbox.md). */
export function describeSandboxBehaviour(target: ProviderUnderTest): void {
  if (target.skipReason) {
    describe(`${target.name} sandbox provider`, () => {
      it.skip(`skipped: ${target.skipReason}`, () => undefined);
    });
    process.stdout.write(`${target.name} sandbox suite skipped: ${target.skipReason}\n`);
    return;
  }
  describe(`${target.name} sandbox provider`, () => {
    let rootDir: string;
    let provider: SandboxProvider;
    let sandbox: Sandbox;

    beforeAll(async () => {
      rootDir = await mkdtemp(join(tmpdir(), `caravel-sbx-${target.name}-`));
      // mkdtemp makes it private; bubblewrap runs as an unprivileged uid that must traverse it.
      await chmod(rootDir, 0o755);
      provider = target.make(rootDir);
      sandbox = await provider.create({ outputLimitBytes: OUTPUT_LIMIT });
    });

    afterAll(async () => {
      await sandbox?.close();
      await rm(rootDir, { recursive: true, force: true });
    });

    describeSessionBehaviour(
      () => sandbox,
      () => provider,
    );
    if (target.streamsOutput !== false) describeStreaming(() => sandbox, OUTPUT_LIMIT);
    describeFileBehaviour(() => sandbox);
    describeLifecycle(() => provider);
    if (target.isolated)
      describeIsolation(
        () => sandbox,
        () => provider,
      );
  });
}

/**
 * A background job (its argument: the session driver's pid) that, once `trigger` exists, kills
 * every bash sourcing a `run.sh` whose parent is that driver, then writes how many to `killed`.
 * The driver starts the next command's bash just after answering the last command, so the job
 * looks again (for up to 10 s) until it has found one.
 */
const KILL_NEXT_COMMANDS_BASH = [
  'driver=$1 n=0',
  'until [ -e trigger ]; do sleep 0.05; done',
  'for _ in $(seq 1 200); do',
  '  for p in /proc/[0-9]*; do',
  '    mapfile -d "" argv < "$p/cmdline" 2>/dev/null || continue',
  '    case "${argv[*]}" in */run.sh\\ *) ;; *) continue ;; esac',
  '    parent=',
  '    while read -r key value; do [ "$key" = PPid: ] && parent=$value && break; done < "$p/status"',
  '    [ "$parent" = "$driver" ] && kill -9 "${p#/proc/}" && n=$((n + 1))',
  '  done',
  '  [ "$n" -gt 0 ] && break',
  '  sleep 0.05',
  'done',
  'echo "$n" > killed.tmp && mv killed.tmp killed',
];

function describeSessionBehaviour(get: () => Sandbox, getProvider: () => SandboxProvider): void {
  it('reports a timeout and keeps the session usable', async () => {
    const slow = await get().exec('echo started; sleep 30', { timeoutMs: 500 });
    expect(slow).toMatchObject({ timedOut: true });
    expect(slow.output).toContain('started');
    const next = await get().exec('echo still here');
    expect(next).toMatchObject({ exitCode: 0, output: 'still here\n', timedOut: false });
  });

  it('gives commands no stdin, so cat and read return at once', async () => {
    const result = await get().exec('cat; read -r line; echo "read=$?"', { timeoutMs: 10_000 });
    expect(result).toMatchObject({ exitCode: 0, output: 'read=1\n', timedOut: false });
  });

  it('does not hang on less or git log in a repository', async () => {
    const setup = [
      'rm -rf pager && mkdir pager && cd pager',
      'printf "hello pager\\n" > README',
      'git init -q . && git add README',
      'git -c user.name=t -c user.email=t@example.com commit -q -m "first commit"',
    ].join(' && ');
    expect(await get().exec(setup, { timeoutMs: 20_000 })).toMatchObject({ exitCode: 0 });
    const less = await get().exec('less README', { timeoutMs: 10_000 });
    expect(less).toMatchObject({ timedOut: false, output: 'hello pager\n' });
    const log = await get().exec('git log', { timeoutMs: 10_000 });
    expect(log.timedOut).toBe(false);
    expect(log.output).toContain('first commit');
    await get().exec('cd ..');
  });

  it('caps 10 MB of output with a note naming the dropped bytes', async () => {
    const result = await get().exec("head -c 10000000 /dev/zero | tr '\\0' a", {
      timeoutMs: 30_000,
    });
    expect(result).toMatchObject({ exitCode: 0, truncated: true, outputBytes: 10_000_000 });
    expect(result.output).toContain(
      `[... ${10_000_000 - OUTPUT_LIMIT} bytes of output elided ...]`,
    );
    expect(result.output.length).toBeLessThan(OUTPUT_LIMIT + 200);
  });

  it('runs heredocs literally', async () => {
    const result = await get().exec("cat <<'EOF'\nline one $HOME\n  two\nEOF");
    expect(result.output).toBe('line one $HOME\n  two\n');
  });

  it('reports exit codes, including from exit itself', async () => {
    expect((await get().exec('false')).exitCode).toBe(1);
    expect((await get().exec('(exit 3)')).exitCode).toBe(3);
    expect((await get().exec('exit 7')).exitCode).toBe(7);
    expect((await get().exec('echo alive')).output).toBe('alive\n');
  });

  it('keeps cwd, exported variables and functions between calls', async () => {
    await get().exec(
      'mkdir -p keep/sub && cd keep/sub && export KEPT=yes && greet() { echo hi "$1"; }',
    );
    const result = await get().exec('pwd; echo "$KEPT"; greet there');
    expect(result.output).toBe(`${get().workdir}/keep/sub\nyes\nhi there\n`);
    await get().exec('cd "$OLDPWD" 2>/dev/null; cd ' + get().workdir);
  });

  it('scopes per-command environment to that command', async () => {
    await get().exec('export SHARED=session');
    const once = await get().exec('echo "$ONCE $SHARED"', { env: { ONCE: '1', SHARED: 'call' } });
    expect(once.output).toBe('1 call\n');
    const after = await get().exec('echo "${ONCE:-unset} $SHARED"');
    expect(after.output).toBe('unset session\n');
  });

  it('serializes concurrent execs on one session', async () => {
    const runs = ['a', 'b', 'c', 'd'].map((tag) =>
      get().exec(`for i in 1 2 3; do echo ${tag}$i; sleep 0.02; done`),
    );
    const outputs = (await Promise.all(runs)).map((r) => r.output);
    expect(outputs).toEqual(['a1\na2\na3\n', 'b1\nb2\nb3\n', 'c1\nc2\nc3\n', 'd1\nd2\nd3\n']);
  });

  it('runs the next command when a background job killed the bash waiting for it', async () => {
    // The job kills the bash its own session's driver started ahead for the next command, once
    // the host says so. Only that driver's: on a provider without a pid namespace (local) /proc is
    // the whole host's, and a job killing every bash sourcing a run.sh killed every session's
    // running command on the machine (the resumed command of the embedded kill -9 e2e, exit 137,
    // whenever this ran beside it). A command of another session runs meanwhile and must live.
    const other = await getProvider().create({ outputLimitBytes: OUTPUT_LIMIT });
    try {
      const bystander = other.exec(
        'echo started > running; until [ -e go ]; do sleep 0.05; done; echo lived',
        { timeoutMs: 60_000 },
      );
      await eventually(() => other.readFile('running'));
      await get().writeFile('killer.sh', KILL_NEXT_COMMANDS_BASH.join('\n'));
      // The job is given the driver's pid: the parent of this command's bash.
      await get().exec('nohup bash killer.sh "$PPID" > /dev/null 2>&1 &');
      await get().writeFile('trigger', '');
      // Between two commands, the driver's only such child is the bash started for the next one.
      expect(await eventually(() => get().readFile('killed'))).toBe('1\n');
      await other.writeFile('go', '');
      expect(await bystander).toMatchObject({ exitCode: 0, output: 'lived\n' });

      const next = await get().exec('echo alive; rm -f killer.sh trigger killed');
      expect([next.exitCode, next.output]).toEqual([0, 'alive\n']);
    } finally {
      await other.close();
      await getProvider().delete(other.id);
    }
  });

  it('makes binary output safe to show', async () => {
    const result = await get().exec("printf 'a\\000b\\377c\\033[31mred\\033[0m\\r\\n'");
    expect(result.output).toBe('a\\x00b\uFFFDcred\n');
  });
}

function describeFileBehaviour(get: () => Sandbox): void {
  it('writes, reads, edits, lists, globs and greps inside the workdir', async () => {
    const box = get();
    await box.writeFile('files/src/a.ts', 'export const a = 1;\nexport const b = 1;\n');
    await box.writeFile(`${box.workdir}/files/src/b.md`, '# notes\n');
    expect(await box.readFile('files/src/a.ts')).toContain('const a = 1');
    expect(await box.editFile('files/src/a.ts', 'a = 1', 'a = 2')).toEqual({ replacements: 1 });
    expect((await box.exec('cat files/src/a.ts')).output).toContain('a = 2');
    const listed = await box.listFiles('files', { recursive: true });
    expect(listed.entries.map((e) => `${e.type}:${e.path}`)).toEqual([
      'directory:files/src',
      'file:files/src/a.ts',
      'file:files/src/b.md',
    ]);
    expect(await box.glob('files/**/*.{ts,md}')).toEqual(['files/src/a.ts', 'files/src/b.md']);
    const grep = await box.grep('const b', { path: 'files' });
    expect(grep.matches).toEqual([
      { path: 'files/src/a.ts', line: 2, text: 'export const b = 1;' },
    ]);
  });

  it('fails an edit clearly when the old text is absent or ambiguous', async () => {
    const box = get();
    await box.writeFile('edit.txt', 'x\nx\n');
    expect(await reason(box.editFile('edit.txt', 'y', 'z'))).toBe('edit_text_absent');
    expect(await reason(box.editFile('edit.txt', 'x', 'z'))).toBe('edit_text_ambiguous');
    expect(await box.editFile('edit.txt', 'x', 'z', { replaceAll: true })).toEqual({
      replacements: 2,
    });
  });

  it('refuses paths that escape the workdir, through .. or a symlink', async () => {
    const box = get();
    await box.exec('ln -sfn /etc escape-link && ln -sfn .. up-link');
    expect(await reason(box.readFile('../outside.txt'))).toBe('path_outside_workdir');
    expect(await reason(box.writeFile('/etc/caravel-probe', 'x'))).toBe('path_outside_workdir');
    expect(await reason(box.readFile('escape-link/passwd'))).toBe('path_outside_workdir');
    expect(await reason(box.writeFile('up-link/x.txt', 'x'))).toBe('path_outside_workdir');
    expect(await reason(box.listFiles('a/../../..'))).toBe('path_outside_workdir');
    expect(await reason(box.readFile('missing.txt'))).toBe('file_not_found');
  });
}

function describeLifecycle(getProvider: () => SandboxProvider): void {
  it('reconnects to a sandbox, keeping its files, and deletes it', async () => {
    const provider = getProvider();
    const first = await provider.create({ env: { FROM_SPEC: 'spec' } });
    await first.exec('echo kept > note.txt');
    await first.close();
    expect(await first.ping()).toBe(false);
    const again = await provider.connect(first.id);
    expect((await again.exec('cat note.txt; echo "$FROM_SPEC"')).output).toBe('kept\nspec\n');
    await provider.delete(first.id);
    expect(await again.ping()).toBe(false);
    expect(await reason(provider.connect(first.id))).toBe('sandbox_not_found');
    expect(await reason(provider.create({ id: '../evil' }))).toBe('invalid_input');
  });
}

function describeIsolation(get: () => Sandbox, getProvider: () => SandboxProvider): void {
  it('has a read-only root outside the workdir and /tmp', async () => {
    const result = await get().exec('touch /usr/caravel-probe || touch /etc/caravel-probe');
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('Read-only file system');
    expect((await get().exec('touch /tmp/ok && echo ok')).output).toBe('ok\n');
  });

  it('cannot reach PostgreSQL or NATS on the host loopback', async () => {
    const probe = (port: number) =>
      get().exec(`(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo open || echo closed`, {
        timeoutMs: 10_000,
      });
    expect((await probe(5432)).output).toBe('closed\n');
    expect((await probe(4222)).output).toBe('closed\n');
  });

  it('sees none of the host environment, runs as a non-root user', async () => {
    const result = await get().exec('env; id -u; cat /proc/1/environ | tr "\\0" "\\n"');
    expect(result.output).not.toContain('CARAVEL_SECRET_PROBE');
    expect(result.output).toContain('PAGER=cat');
    expect(result.output).toMatch(/^1000$/m);
  });

  it('contains a fork bomb with the process limit', async () => {
    const provider = getProvider();
    const box = await provider.create({ limits: { maxProcesses: 64 } });
    try {
      // The bomb outlives its command in the background; the session then either survives (the
      // host stops the bomb and a result says so: the next command runs, or — when the bomb still
      // held every process as it started — is itself stopped with the limit named, and the one
      // after runs) or, starved of processes, is reported dead. Either way the limit holds and
      // nothing else suffers.
      const next = (command: string) =>
        box.exec(command, { timeoutMs: 60_000 }).then(
          (result) => result.output,
          (error: unknown) => sandboxErrorReason(error),
        );
      await box.exec('bomb() { bomb | bomb & }; bomb', { timeoutMs: 3_000 }).catch(() => null);
      const survived = (output: string | undefined) => output?.split('\n').includes('survived');
      let outcome = await next('echo survived');
      if (outcome?.includes('process limit') && !survived(outcome)) {
        outcome = await next('echo survived');
      }
      if (!survived(outcome)) {
        expect(outcome).toBe('session_dead');
        expect(await box.ping()).toBe(false);
      }
      expect((await get().exec('echo other sandboxes unaffected')).exitCode).toBe(0);
    } finally {
      await box.close();
    }
  }, 120_000);
}
