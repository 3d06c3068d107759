import { posix } from 'node:path';

/** One Dockerfile instruction, continuation lines joined. */
export interface DockerInstruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

/** What the host build does for one instruction. */
export type BuildStep =
  | { readonly kind: 'source'; readonly url: string; readonly sha: string; readonly target: string }
  | {
      readonly kind: 'run';
      readonly command: string;
      readonly cwd: string;
      readonly env: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'copy';
      readonly sources: readonly string[];
      readonly dest: string;
      readonly cwd: string;
    }
  | { readonly kind: 'skip'; readonly line: number; readonly text: string; readonly why: string };

/** Splits a Dockerfile into instructions (comments and blank lines dropped, `\` continuations joined). */
export function parseDockerfile(text: string): DockerInstruction[] {
  const out: DockerInstruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (pending === '' && (line.trim() === '' || line.trim().startsWith('#'))) return;
    if (pending === '') start = index + 1;
    if (line.trim().startsWith('#')) return;
    if (/\\\s*$/.test(line)) {
      pending += `${line.replace(/\\\s*$/, '')} `;
      return;
    }
    const full = (pending + line).trim();
    pending = '';
    const match = /^(\S+)\s*([\s\S]*)$/.exec(full);
    if (match)
      out.push({ keyword: (match[1] ?? '').toUpperCase(), args: match[2] ?? '', line: start });
  });
  return out;
}

/** Splits a shell command on top-level `&&` (quotes and parentheses respected). */
export function splitAndList(command: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let current = '';
  for (let i = 0; i < command.length; i += 1) {
    const c = command.charAt(i);
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === '&' && command.charAt(i + 1) === '&' && depth === 0) {
      parts.push(current.trim());
      current = '';
      i += 1;
      continue;
    }
    current += c;
  }
  parts.push(current.trim());
  return parts.filter((p) => p !== '');
}

const SYSTEM_INSTALL = [
  /^(sudo\s+)?(apt-get|apt|apk|yum|dnf|microdnf|zypper)\b/,
  /^(sudo\s+)?add-apt-repository\b/,
  /^(sudo\s+)?(curl|wget)\b.*\|\s*(sudo\s+)?(-E\s+)?(ba)?sh\b/,
  /^rm -rf \/var\/lib\/apt\/lists/,
];

/** True when a command segment installs system packages (the host's toolchain stands in). */
export function installsSystemPackages(segment: string): boolean {
  return SYSTEM_INSTALL.some((pattern) => pattern.test(segment.trim()));
}

/** The repository fetch of a RUN line (`git clone`/`git init` + `git fetch`), or undefined. */
export function sourceFetch(
  command: string,
  cwd: string,
): { url: string; sha: string; target: string } | undefined {
  if (!/\bgit\s+(clone|fetch)\b/.test(command)) return undefined;
  const url =
    /git\s+remote\s+add\s+origin\s+(\S+)/.exec(command)?.[1] ??
    /git\s+clone\s+(?:-\S+\s+)*(\S+)/.exec(command)?.[1];
  const sha =
    /git\s+fetch\b[^&|;]*?\borigin\s+([0-9a-f]{7,40})\b/.exec(command)?.[1] ??
    /git\s+checkout\s+(?:--detach\s+)?([0-9a-f]{7,40})\b/.exec(command)?.[1];
  if (!url || !sha) return undefined;
  const dir =
    /git\s+init\s+(\S+)/.exec(command)?.[1] ??
    /git\s+clone\s+(?:-\S+\s+)*\S+\s+([^\s&;|]+)/.exec(command)?.[1] ??
    '.';
  return { url, sha, target: posix.resolve(cwd, dir) };
}

function parseEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  if (!args.includes('=')) {
    const [key, ...rest] = args.split(/\s+/);
    if (key) env[key] = rest.join(' ');
    return env;
  }
  for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
    const value = m[2] ?? '';
    env[m[1] ?? ''] = /^["']/.test(value) ? value.slice(1, -1) : value;
  }
  return env;
}

/**
 * Plans a host build from a task's Dockerfile: the repository fetch becomes a host-side checkout
 * (`source`), system package installs are skipped (the host's toolchain stands in for the image),
 * RUN runs in the sandbox in the current WORKDIR with the ENV/ARG values so far, COPY copies
 * from the build context. FROM, CMD, USER and the like have no host meaning and are skipped.
 */
export function planHostBuild(instructions: readonly DockerInstruction[]): BuildStep[] {
  const steps: BuildStep[] = [];
  let cwd = '/';
  const env: Record<string, string> = {};
  for (const ins of instructions) {
    if (ins.keyword === 'WORKDIR') cwd = posix.resolve(cwd, ins.args.trim());
    else if (ins.keyword === 'ENV' || ins.keyword === 'ARG') Object.assign(env, parseEnv(ins.args));
    else if (ins.keyword === 'COPY' || ins.keyword === 'ADD') {
      const words = ins.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      steps.push({ kind: 'copy', sources: words.slice(0, -1), dest: words.at(-1) ?? '.', cwd });
    } else if (ins.keyword === 'RUN') steps.push(...planRun(ins, cwd, { ...env }));
    else
      steps.push({
        kind: 'skip',
        line: ins.line,
        text: `${ins.keyword} ${ins.args}`,
        why: 'no meaning on the host',
      });
  }
  return steps;
}

function planRun(ins: DockerInstruction, cwd: string, env: Record<string, string>): BuildStep[] {
  const source = sourceFetch(ins.args, cwd);
  if (source) return [{ kind: 'source', ...source }];
  const kept = splitAndList(ins.args).filter((segment) => !installsSystemPackages(segment));
  if (kept.length === 0) {
    return [
      {
        kind: 'skip',
        line: ins.line,
        text: `RUN ${ins.args}`,
        why: 'system packages come from the host',
      },
    ];
  }
  return [{ kind: 'run', command: kept.join(' && '), cwd, env }];
}
