import { sandboxError } from '../sandbox.errors.js';
import { shellQuote } from '../session/request-encoder.js';
import type { Sandbox } from '../sandbox.types.js';
import type { ToolBundle } from './bundle-load.js';

/** What installing bundles needs of a sandbox: its persistent session. */
export type BundleShell = Pick<Sandbox, 'exec'>;

/** Where SWE-agent's bundles and their files live inside its sandbox. */
export const SWE_AGENT_PATHS = {
  /** SWE-agent's home: its tools write `model.patch`, `state.json`, `.swe-agent-env` here. */
  home: '/root',
  tools: '/root/tools',
  state: '/root/state.json',
  registry: '/root/.swe-agent-env',
  patch: '/root/model.patch',
} as const;

/**
 * SWE-agent's default `env_variables` of its tools (no pager, no progress bars), and the
 * `LC_ALL` its session exports at start.
 */
export const SWE_AGENT_TOOL_ENV: Readonly<Record<string, string>> = {
  LC_ALL: 'C.UTF-8',
  PAGER: 'cat',
  MANPAGER: 'cat',
  LESS: '-R',
  PIP_PROGRESS_BAR: 'off',
  TQDM_DISABLE: '1',
  GIT_PAGER: 'cat',
};

/** Options of {@link installBundles}. */
export interface BundleInstallOptions {
  /** The repository as the trajectory addresses it (`/<repo>`): `$ROOT`, and the final cwd. */
  readonly repoDir: string;
  /** The run's `env_variables` (they win over a bundle's own). */
  readonly env?: Readonly<Record<string, string>>;
  /** The run's `registry_variables`, written to the registry file. */
  readonly registry?: Readonly<Record<string, unknown>>;
  /** Time allowed for each `install.sh` (default 5 minutes). */
  readonly installTimeoutMs?: number;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

async function run(shell: BundleShell, command: string, timeoutMs = 60_000) {
  const result = await shell.exec(command, { timeoutMs });
  return { ...result, ok: result.exitCode === 0 && !result.timedOut };
}

function lastLine(output: string): string {
  return output.trim().split('\n').at(-1)?.slice(0, 200) ?? '';
}

/**
 * Refuses bundles whose `#!` interpreter the sandbox lacks, in one line naming the bundle,
 * the file and the program (checked inside the sandbox, with its PATH).
 */
export async function checkInterpreters(
  shell: BundleShell,
  bundles: readonly ToolBundle[],
): Promise<void> {
  const programs = [...new Set(bundles.flatMap((b) => b.interpreters.map((i) => i.program)))];
  if (programs.length === 0) return;
  const checks = programs.map((program) =>
    program.startsWith('/')
      ? `[ -x ${shellQuote(program)} ] || printf '%s\\n' ${shellQuote(program)}`
      : `command -v ${shellQuote(program)} >/dev/null 2>&1 || printf '%s\\n' ${shellQuote(program)}`,
  );
  const result = await run(shell, checks.join('\n'));
  if (result.timedOut || (result.exitCode !== 0 && result.output.trim() === '')) {
    throw sandboxError('invalid_input', `could not check the bundles' interpreters`);
  }
  const missing = new Set(result.output.split('\n').filter((line) => line !== ''));
  const lacking = bundles.flatMap((bundle) =>
    bundle.interpreters
      .filter((found) => missing.has(found.program))
      .map((found) => ({ bundle: bundle.name, ...found })),
  );
  const first = lacking[0];
  if (first === undefined) return;
  const more = lacking.length > 1 ? ` (and ${lacking.length - 1} more file(s))` : '';
  throw sandboxError(
    'unsupported',
    `SWE-agent bundle '${first.bundle}': ${first.file} needs ${first.program} (#!${first.line}), which the sandbox does not have${more}`,
    { bundle: first.bundle, file: first.file, interpreter: first.program },
  );
}

function exports(values: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(values).filter(([name]) => ENV_NAME.test(name));
  return pairs.length === 0
    ? ':'
    : `export ${pairs.map(([name, value]) => `${name}=${shellQuote(value)}`).join(' ')}`;
}

/**
 * Installs bundles into a sandbox whose `SWE_AGENT_PATHS.tools` holds their read-only copy
 * (see `stageBundles`), as SWE-agent's `ToolHandler` does: checks each `#!` interpreter;
 * exports `ROOT`, the tool env (SWE-agent's defaults, each bundle's `env_variables`, then the
 * run's); puts each bundle's `bin/` first on PATH; writes the registry file and an empty state
 * file; sources each `install.sh` once from its own folder; checks every declared command is
 * found; and leaves the session in `repoDir`.
 * @throws AppError naming the bundle on a missing interpreter, a failed install or a missing command.
 */
export async function installBundles(
  shell: BundleShell,
  bundles: readonly ToolBundle[],
  options: BundleInstallOptions,
): Promise<void> {
  await checkInterpreters(shell, bundles);
  const env = Object.assign(
    { ...SWE_AGENT_TOOL_ENV, ROOT: options.repoDir },
    ...bundles.map((bundle) => bundle.config.envVariables),
    options.env ?? {},
  ) as Record<string, string>;
  const path = bundles.map((b) => `${SWE_AGENT_PATHS.tools}/${b.name}/bin`).reverse();
  const setup = [
    exports(env),
    `export PATH=${path.map(shellQuote).join(':')}:"$PATH"`,
    `printf '%s' ${shellQuote(JSON.stringify(options.registry ?? {}))} > ${SWE_AGENT_PATHS.registry}`,
    `printf '{}' > ${SWE_AGENT_PATHS.state}`,
  ].join(' && ');
  const prepared = await run(shell, setup);
  if (!prepared.ok) {
    throw sandboxError(
      'invalid_input',
      `could not prepare the SWE-agent tool environment: ${lastLine(prepared.output)}`,
    );
  }
  for (const bundle of bundles.filter((b) => b.hasInstallScript)) {
    const dir = shellQuote(`${SWE_AGENT_PATHS.tools}/${bundle.name}`);
    const installed = await run(shell, `cd ${dir} && source install.sh`, options.installTimeoutMs);
    if (!installed.ok) {
      const why = installed.timedOut ? 'timed out' : `exit ${installed.exitCode}`;
      throw sandboxError(
        'invalid_input',
        `SWE-agent bundle '${bundle.name}': install.sh failed (${why}): ${lastLine(installed.output)}`,
        { bundle: bundle.name },
      );
    }
  }
  await assertCommandsFound(shell, bundles);
  const moved = await run(shell, `cd ${shellQuote(options.repoDir)}`);
  if (!moved.ok) {
    throw sandboxError(
      'invalid_input',
      `cannot enter ${options.repoDir}: ${lastLine(moved.output)}`,
    );
  }
}

async function assertCommandsFound(shell: BundleShell, bundles: readonly ToolBundle[]) {
  const names = bundles.flatMap((bundle) => [
    ...bundle.config.commands.map((command) => ({ bundle: bundle.name, name: command.name })),
    ...(bundle.config.stateCommand
      ? [{ bundle: bundle.name, name: bundle.config.stateCommand }]
      : []),
  ]);
  const wanted = names.filter((entry) => entry.name !== 'bash');
  if (wanted.length === 0) return;
  const script = wanted
    .map(
      (e) =>
        `command -v ${shellQuote(e.name)} >/dev/null 2>&1 || printf '%s\\n' ${shellQuote(e.name)}`,
    )
    .join('\n');
  const result = await run(shell, script);
  const missing = result.output.split('\n').filter((line) => line !== '');
  const first = wanted.find((entry) => missing.includes(entry.name));
  if (first === undefined) return;
  throw sandboxError(
    'invalid_input',
    `SWE-agent bundle '${first.bundle}': command '${first.name}' is not found after install (no bin/${first.name})`,
    { bundle: first.bundle, command: first.name },
  );
}

/** What the state commands left in the state file after a step. */
export interface BundleState {
  /** The state file's object; null when it is missing or not a JSON object. */
  readonly state: Record<string, unknown> | null;
  /** State commands that failed, and why the file could not be read (SWE-agent only warns). */
  readonly warnings: readonly string[];
}

/**
 * Runs every bundle's `state_command` in the session, in order, then reads the state file as
 * SWE-agent does after each step. A failing command is a warning, not an error.
 */
export async function readBundleState(
  shell: BundleShell,
  bundles: readonly ToolBundle[],
): Promise<BundleState> {
  const warnings: string[] = [];
  for (const bundle of bundles) {
    const command = bundle.config.stateCommand;
    if (command === null) continue;
    const result = await run(shell, command, 30_000);
    if (!result.ok) warnings.push(`${command} (${bundle.name}) failed: ${lastLine(result.output)}`);
  }
  const read = await run(shell, `cat ${SWE_AGENT_PATHS.state}`, 30_000);
  if (!read.ok) return { state: null, warnings: [...warnings, `no ${SWE_AGENT_PATHS.state}`] };
  try {
    const parsed = JSON.parse(read.output) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return { state: parsed as Record<string, unknown>, warnings };
    }
  } catch {
    // Reported below, as SWE-agent's "state is not a JSON object".
  }
  return { state: null, warnings: [...warnings, `${SWE_AGENT_PATHS.state} is not a JSON object`] };
}
