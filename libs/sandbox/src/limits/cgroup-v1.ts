import { join } from 'node:path';
import type { SandboxLimits } from '../sandbox.types.js';
import {
  cpuQuotaUs,
  DirectoryCgroupBackend,
  type CgroupEnforcement,
  type CgroupStep,
} from './cgroup-backend.js';

/** The base directory of sandbox cgroups in each v1 hierarchy used (`cpu` is optional). */
export interface V1Bases {
  readonly pids: string;
  readonly memory: string;
  readonly cpu?: string;
  /** Whether the memory hierarchy accounts swap (`memory.memsw.*`). */
  readonly memsw: boolean;
}

/**
 * Sandbox cgroups in v1 hierarchies: `<pids base>/<name>`, `<memory base>/<name>` and, when the
 * cpu hierarchy is there, `<cpu base>/<name>`. v1 has no rule against processes in inner cgroups,
 * so the bases are plain directories (by default /caravel-sandboxes in each hierarchy).
 */
export class CgroupV1Backend extends DirectoryCgroupBackend {
  readonly version = 'v1' as const;
  readonly enforces: CgroupEnforcement;
  protected readonly bases: readonly string[];

  constructor(private readonly hierarchies: V1Bases) {
    super();
    this.enforces = { processes: true, memory: true, cpu: hierarchies.cpu !== undefined };
    this.bases = [
      hierarchies.pids,
      hierarchies.memory,
      ...(hierarchies.cpu ? [hierarchies.cpu] : []),
    ];
  }

  get description(): string {
    const cpu = this.hierarchies.cpu
      ? `, ${this.hierarchies.cpu}`
      : ' (no cpu hierarchy: CPU not limited)';
    return `cgroup v1 at ${this.hierarchies.pids}, ${this.hierarchies.memory}${cpu}`;
  }

  dirs(name: string): string[] {
    return [...new Set(this.bases.map((base) => join(base, name)))];
  }

  enterSteps(name: string, limits: SandboxLimits): CgroupStep[] {
    const pids = join(this.hierarchies.pids, name);
    const memory = join(this.hierarchies.memory, name);
    const bytes = String(limits.maxMemoryBytes);
    // memsw may never be below the limit: a raised limit fails its first write, passes after memsw.
    const memoryLimit = [
      { op: 'try' as const, path: join(memory, 'memory.limit_in_bytes'), value: bytes },
      ...(this.hierarchies.memsw
        ? [
            {
              op: 'write' as const,
              path: join(memory, 'memory.memsw.limit_in_bytes'),
              value: bytes,
            },
          ]
        : []),
      { op: 'write' as const, path: join(memory, 'memory.limit_in_bytes'), value: bytes },
    ];
    const steps: CgroupStep[] = [
      { op: 'mkdir', path: pids },
      { op: 'write', path: join(pids, 'pids.max'), value: String(limits.maxProcesses) },
      { op: 'mkdir', path: memory },
      ...memoryLimit,
    ];
    if (this.hierarchies.cpu) {
      const cpu = join(this.hierarchies.cpu, name);
      steps.push(
        { op: 'mkdir', path: cpu },
        { op: 'write', path: join(cpu, 'cpu.cfs_period_us'), value: '100000' },
        {
          op: 'write',
          path: join(cpu, 'cpu.cfs_quota_us'),
          value: String(cpuQuotaUs(limits.maxCpus)),
        },
      );
    }
    const joins = this.dirs(name).map((dir) => ({
      op: 'join' as const,
      path: join(dir, 'cgroup.procs'),
    }));
    return [...steps, ...joins];
  }

  protected eventFiles(name: string): { pids: string; memory: string } {
    return {
      pids: join(this.hierarchies.pids, name, 'pids.events'),
      memory: join(this.hierarchies.memory, name, 'memory.oom_control'),
    };
  }
}
