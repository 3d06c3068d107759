import type { SandboxBind } from '../providers/bwrap-binds.js';
import { installBundles, readBundleState, type BundleShell } from './bundle-install.js';
import { loadBundles, type ToolBundle } from './bundle-load.js';
import { bundleCommandsPrompt } from './bundle-prompt.js';
import { stageBundles } from './bundle-stage.js';
import { sweAgentBinds } from './swe-layout.js';

/** Bundles read for the runs of a platform, and the binds that put their copy in each sandbox. */
export interface RunBundles {
  readonly bundles: readonly ToolBundle[];
  /** The sandbox's home again at `/root`, the staged copy read-only at `/root/tools`. */
  readonly binds: readonly SandboxBind[];
}

/**
 * Reads bundles `names` from `toolsDir` (a folder of bundles or a SWE-agent checkout; never
 * fetched) as data and stages their read-only copy in `stageDir`, for bwrap sandboxes whose
 * workspace stays at `/workspace` (`caravel run`).
 * @throws AppError naming the bundle: not found, a bad config, two declaring one command.
 */
export async function prepareRunBundles(
  toolsDir: string,
  names: readonly string[],
  stageDir: string,
): Promise<RunBundles> {
  const bundles = await loadBundles(toolsDir, names);
  await stageBundles(bundles, stageDir);
  return { bundles, binds: sweAgentBinds({ repoName: null, stagedTools: stageDir }) };
}

/** Warnings (a failing state command, an unreadable state file) go here; SWE-agent only warns. */
export type BundleWarn = (message: string) => void;

/**
 * One run's installed bundles: the system prompt's section for their commands, and the state
 * their `state_command`s leave after each tool call, kept by the call's id until its step is
 * recorded (the graph runs ahead of whoever records its steps, so the state is read in the tool
 * call itself, before the next model turn can change anything).
 */
export class RunBundleSession {
  private readonly states = new Map<string, Record<string, unknown>>();
  readonly prompt: string;

  private constructor(
    private readonly shell: BundleShell,
    readonly bundles: readonly ToolBundle[],
    private readonly warn: BundleWarn,
  ) {
    this.prompt = bundleCommandsPrompt(bundles);
  }

  /**
   * Installs `bundles` in the sandbox's session (see `installBundles`; the session ends in
   * `repoDir`, default `/workspace`).
   * @throws AppError naming the bundle: a missing interpreter, a failed install.sh, a missing command.
   */
  static async install(
    shell: BundleShell,
    bundles: readonly ToolBundle[],
    warn: BundleWarn,
    repoDir = '/workspace',
  ): Promise<RunBundleSession> {
    await installBundles(shell, bundles, { repoDir });
    return new RunBundleSession(shell, bundles, warn);
  }

  /** The bundles' multi-line commands (`edit … end_of_edit`): each name and its end line. */
  get multilineCommands(): { name: string; endName: string }[] {
    return this.bundles.flatMap((bundle) =>
      bundle.config.commands.flatMap((command) =>
        command.endName === null ? [] : [{ name: command.name, endName: command.endName }],
      ),
    );
  }

  /** Runs the state commands after the call `callId` and keeps what they wrote. */
  async captureAfter(callId: string): Promise<void> {
    try {
      const read = await readBundleState(this.shell, this.bundles);
      for (const warning of read.warnings) this.warn(`bundle state: ${warning}`);
      if (read.state !== null) this.states.set(callId, read.state);
    } catch (error) {
      // A sandbox that stopped answering is the tool's problem to report, not the state's.
      this.warn(`bundle state: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The state after the last of a step's calls that has one (each taken once). */
  takeState(callIds: readonly string[]): Record<string, unknown> | undefined {
    let state: Record<string, unknown> | undefined;
    for (const id of callIds) {
      state = this.states.get(id) ?? state;
      this.states.delete(id);
    }
    return state;
  }
}
