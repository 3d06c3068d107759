import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

declare global {
  /** Set by `tools/chaos/run.mjs` through the Jest config: the run id its sweep looks for. */
  var caravelChaosRun: string | undefined;
}

/**
 * One chaos run's identity and the one place everything it creates lives, so that whatever
 * happens (a failure, Ctrl-C, a killed Jest) `tools/chaos/run.mjs` can find and remove it:
 * every process it starts carries `CARAVEL_CHAOS_RUN=<id>` in its environment, every file is
 * under `<tmp>/caravel-chaos-<id>`, every database is named `caravel_chaos_<id>_<part>`.
 */
export class ChaosRun {
  private constructor(
    readonly id: string,
    readonly dir: string,
  ) {}

  /** The run `run.mjs` named, or a fresh one when the suite runs under Jest alone. */
  static async open(): Promise<ChaosRun> {
    const id = globalThis.caravelChaosRun || randomBytes(4).toString('hex');
    const dir = join(tmpdir(), `caravel-chaos-${id}`);
    await mkdir(dir, { recursive: true });
    // bubblewrap runs a sandbox as an unprivileged uid that must traverse to its workspace.
    await chmod(dir, 0o755);
    return new ChaosRun(id, dir);
  }

  /** The environment entry that marks a process as this run's. */
  get marker(): Record<string, string> {
    return { CARAVEL_CHAOS_RUN: this.id };
  }

  /** A directory of this run (created, world-traversable). */
  async subdir(name: string): Promise<string> {
    const path = join(this.dir, name);
    await mkdir(path, { recursive: true });
    await chmod(path, 0o755);
    return path;
  }

  databaseName(part: string): string {
    return `caravel_chaos_${this.id}_${part}`;
  }

  async removeFiles(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
