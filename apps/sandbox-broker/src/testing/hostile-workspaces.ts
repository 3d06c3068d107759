import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A workspace an agent made hostile: `install` runs inside the sandbox, as the agent's own
 * command would, and leaves config or files that run `touch <marker>` when git honours them.
 * The marker lives in a host directory no sandbox can see, so it appears only if a process
 * outside the sandbox ran the agent's content. `control` proves the trap is live: it runs, on
 * the host, the git command the broker used to run in a workdir, and must create the marker.
 */
export interface HostileWorkspace {
  readonly name: string;
  install(marker: string, hostRepo: string): string;
  control(workdir: string, controlRemote: string): void;
  /**
   * The trap is a filter driver, which git runs in the sandbox while committing, by design: it
   * only stays off the host where the sandbox is isolated (not with the `local` provider).
   */
  readonly needsIsolation?: boolean;
  /** The workspace is no longer a repository inside the sandbox: publishing must fail cleanly. */
  readonly breaksRepository?: boolean;
}

const HOOKS = [
  'pre-push',
  'pre-commit',
  'commit-msg',
  'prepare-commit-msg',
  'post-commit',
  'post-checkout',
  'post-merge',
  'post-rewrite',
  'pre-auto-gc',
  'reference-transaction',
  'post-index-change',
  'fsmonitor-watchman',
];

/** A script at `path` that creates `marker` (sh, executable). */
const trapScript = (path: string, marker: string) =>
  `printf '#!/bin/sh\\ntouch %s\\nexit 0\\n' '${marker}' > ${path} && chmod +x ${path}`;

/** Host git as the broker used to run it in a workdir it did not own. */
function hostileGit(workdir: string, args: string[], input?: string): void {
  spawnSync('git', ['-c', 'safe.directory=*', ...args], {
    cwd: workdir,
    input: input ?? '',
    env: { PATH: '/usr/bin:/bin', HOME: workdir, GIT_TERMINAL_PROMPT: '0' },
    stdio: ['pipe', 'ignore', 'ignore'],
    timeout: 60_000,
  });
}

export const HOSTILE_WORKSPACES: readonly HostileWorkspace[] = [
  {
    name: 'hooks of every kind in .git/hooks',
    install: (marker) => HOOKS.map((hook) => trapScript(`.git/hooks/${hook}`, marker)).join(' && '),
    control: (workdir, remote) => hostileGit(workdir, ['push', remote, 'HEAD:refs/heads/control']),
  },
  {
    name: 'core.hooksPath naming a directory of hooks',
    install: (marker) =>
      `mkdir -p .githooks && ${HOOKS.map((hook) => trapScript(`.githooks/${hook}`, marker)).join(' && ')} && git config core.hooksPath .githooks`,
    control: (workdir, remote) => hostileGit(workdir, ['push', remote, 'HEAD:refs/heads/control']),
  },
  {
    name: 'core.fsmonitor',
    install: (marker) =>
      `${trapScript('.git/monitor.sh', marker)} && git config core.fsmonitor .git/monitor.sh`,
    control: (workdir) => hostileGit(workdir, ['status']),
  },
  {
    name: 'core.sshCommand with an ssh origin',
    install: (marker) =>
      `git config core.sshCommand 'touch ${marker}; false' && git remote set-url origin ssh://git@example.invalid/acme/widgets.git`,
    control: (workdir) => hostileGit(workdir, ['push', 'origin', 'HEAD']),
  },
  {
    name: 'remote.origin.receivepack and uploadpack',
    install: (marker) =>
      `git config remote.origin.receivepack 'touch ${marker}; git-receive-pack' && git config remote.origin.uploadpack 'touch ${marker}; git-upload-pack'`,
    control: (workdir) => hostileGit(workdir, ['push', 'origin', 'HEAD:refs/heads/control']),
  },
  {
    name: 'credential.helper',
    install: (marker) => `git config credential.helper '!touch ${marker}; true'`,
    control: (workdir) =>
      hostileGit(workdir, ['credential', 'fill'], 'protocol=https\nhost=example.invalid\n\n'),
  },
  {
    name: 'commit.gpgSign with gpg.program',
    install: (marker) =>
      `${trapScript('.git/sign.sh', marker)} && git config commit.gpgSign true && git config gpg.program .git/sign.sh`,
    control: (workdir) =>
      hostileGit(workdir, [
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@t',
        'commit',
        '--allow-empty',
        '-m',
        'control',
      ]),
  },
  {
    name: 'include.path pulling in a config with a filesystem monitor',
    install: (marker) =>
      `${trapScript('.git/monitor.sh', marker)} && printf '[core]\\n\\tfsmonitor = .git/monitor.sh\\n' > .git/extra.cfg && git config include.path extra.cfg`,
    control: (workdir) => hostileGit(workdir, ['status']),
  },
  {
    name: 'filter and diff drivers through .gitattributes',
    needsIsolation: true,
    install: (marker) =>
      [
        `printf '* filter=trap diff=trap\\n' > .gitattributes`,
        `git config filter.trap.clean 'touch ${marker}; cat'`,
        `git config filter.trap.smudge 'touch ${marker}; cat'`,
        `git config diff.trap.textconv 'touch ${marker}; cat'`,
        `git config diff.trap.command 'touch ${marker}; true'`,
      ].join(' && '),
    control: (workdir) => hostileGit(workdir, ['add', '-A']),
  },
  {
    name: '.git as a file pointing at a host repository',
    breaksRepository: true,
    install: (_marker, hostRepo) =>
      `mv .git .git-moved && printf 'gitdir: %s\\n' '${hostRepo}/.git' > .git`,
    control: (workdir) => hostileGit(workdir, ['status']),
  },
  {
    name: '.git as a symlink to a host repository',
    breaksRepository: true,
    install: (_marker, hostRepo) => `mv .git .git-moved && ln -s '${hostRepo}/.git' .git`,
    control: (workdir) => hostileGit(workdir, ['status']),
  },
];

/**
 * The first trap of each kind: one host git would spring, one only isolation stops, one that
 * breaks the repository. Where a suite runs every trap once already, another target (another bus
 * carrying the same broker calls, a whole run) takes these.
 */
export function oneHostileWorkspaceOfEachKind(): HostileWorkspace[] {
  const kinds = [
    (t: HostileWorkspace) => !t.needsIsolation && !t.breaksRepository,
    (t: HostileWorkspace) => t.needsIsolation === true,
    (t: HostileWorkspace) => t.breaksRepository === true,
  ];
  return kinds.flatMap((kind) => HOSTILE_WORKSPACES.filter(kind).slice(0, 1));
}

/**
 * A repository on the host whose config runs `touch <marker>` (a filesystem monitor and hooks):
 * what a `.git` file or symlink in a workspace points host git at.
 */
export async function hostTrapRepository(path: string, marker: string): Promise<string> {
  await mkdir(path, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: path, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch=main');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '--allow-empty', '-m', 'x');
  const monitor = join(path, '.git', 'monitor.sh');
  await writeFile(monitor, `#!/bin/sh\ntouch ${marker}\nexit 0\n`, { mode: 0o755 });
  git('config', 'core.fsmonitor', monitor);
  for (const hook of HOOKS) {
    await writeFile(join(path, '.git', 'hooks', hook), `#!/bin/sh\ntouch ${marker}\n`, {
      mode: 0o755,
    });
  }
  return path;
}

/** The markers present in `dir` (what ran outside a sandbox). */
export async function markersIn(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** Removes every marker in `dir` (after a control created one). */
export async function clearMarkers(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) await rm(join(dir, entry), { force: true });
}
