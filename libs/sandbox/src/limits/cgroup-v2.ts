import { join } from 'node:path';
import type { SandboxLimits } from '../sandbox.types.js';
import {
  cpuQuotaUs,
  DirectoryCgroupBackend,
  type CgroupEnforcement,
  type CgroupStep,
} from './cgroup-backend.js';

/** The control files a v2 sandbox cgroup was found to have (probed once at start). */
export interface V2Files {
  readonly pids: boolean;
  readonly memory: boolean;
  readonly swap: boolean;
  readonly cpu: boolean;
}

/**
 * Sandbox cgroups in the unified hierarchy: `<base>/<name>`, where `base` is a cgroup the broker
 * owns (delegated to it, with the controllers enabled for its children, and no processes of its
 * own). One cgroup per sandbox, whatever runs in it.
 */
export class CgroupV2Backend extends DirectoryCgroupBackend {
  readonly version = 'v2' as const;
  readonly enforces: CgroupEnforcement;
  protected readonly bases: readonly string[];

  constructor(
    private readonly base: string,
    private readonly files: V2Files,
    private readonly how: string,
  ) {
    super();
    this.enforces = { processes: files.pids, memory: files.memory, cpu: files.cpu };
    this.bases = [base];
  }

  get description(): string {
    return `cgroup v2 at ${this.base} (${this.how})`;
  }

  dirs(name: string): string[] {
    return [join(this.base, name)];
  }

  enterSteps(name: string, limits: SandboxLimits): CgroupStep[] {
    const dir = join(this.base, name);
    const at = (file: string) => join(dir, file);
    return [
      { op: 'mkdir', path: dir },
      ...(this.files.pids
        ? [{ op: 'write' as const, path: at('pids.max'), value: String(limits.maxProcesses) }]
        : []),
      ...(this.files.memory
        ? [{ op: 'write' as const, path: at('memory.max'), value: String(limits.maxMemoryBytes) }]
        : []),
      ...(this.files.swap
        ? [{ op: 'write' as const, path: at('memory.swap.max'), value: '0' }]
        : []),
      ...(this.files.cpu
        ? [
            {
              op: 'write' as const,
              path: at('cpu.max'),
              value: `${cpuQuotaUs(limits.maxCpus)} 100000`,
            },
          ]
        : []),
      { op: 'join', path: at('cgroup.procs') },
    ];
  }

  protected eventFiles(name: string): { pids: string; memory: string } {
    const dir = join(this.base, name);
    return { pids: join(dir, 'pids.events'), memory: join(dir, 'memory.events') };
  }
}
