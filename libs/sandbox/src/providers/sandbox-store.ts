import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandboxError } from '../sandbox.errors.js';
import type { SandboxLimits, SandboxProviderName, SandboxSpec } from '../sandbox.types.js';
import { validateEnv } from '../session/request-encoder.js';

const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** What a provider records about a sandbox so `connect` can rebuild its session. */
export interface SandboxRecord {
  readonly id: string;
  readonly provider: SandboxProviderName;
  readonly env: Readonly<Record<string, string>>;
  readonly limits: SandboxLimits;
  readonly defaultTimeoutMs: number;
  readonly outputLimitBytes: number;
  readonly createdAt: string;
}

/** Host directories of one sandbox. */
export interface SandboxPaths {
  readonly root: string;
  readonly workspace: string;
  readonly home: string;
}

/** Settings a provider fills a spec's gaps with. */
export interface SandboxDefaults {
  readonly limits: SandboxLimits;
  readonly defaultTimeoutMs: number;
  readonly maxTimeoutMs: number;
  readonly outputLimitBytes: number;
}

/** Library defaults: generous for builds and tests, finite everywhere. */
export const DEFAULT_SANDBOX_SETTINGS: SandboxDefaults = {
  limits: {
    maxProcesses: 512,
    maxMemoryBytes: 4 * 1024 ** 3,
    maxCpus: 2,
    maxFileBytes: 2 * 1024 ** 3,
    maxOpenFiles: 4096,
    maxWorkspaceBytes: 10 * 1024 ** 3,
    maxTmpBytes: 1024 ** 3,
  },
  defaultTimeoutMs: 120_000,
  maxTimeoutMs: 3_600_000,
  outputLimitBytes: 100_000,
};

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw sandboxError('invalid_input', `${name} must be a positive integer, got ${value}`);
  }
  return value;
}

function positiveNumber(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw sandboxError('invalid_input', `${name} must be a positive number, got ${value}`);
  }
  return value;
}

/**
 * Sandboxes on disk under one root: `<root>/<id>/workspace` (the workdir), `<root>/<id>/home`
 * and `<root>/<id>/sandbox.json`. The directory is the sandbox: it outlives sessions and hosts.
 */
export class SandboxStore {
  constructor(
    private readonly rootDir: string,
    private readonly provider: SandboxProviderName,
    private readonly defaults: SandboxDefaults,
  ) {}

  paths(id: string): SandboxPaths {
    if (!SANDBOX_ID.test(id)) {
      throw sandboxError('invalid_input', `invalid sandbox id ${JSON.stringify(id)}`);
    }
    const root = join(this.rootDir, id);
    return { root, workspace: join(root, 'workspace'), home: join(root, 'home') };
  }

  /** Creates the directories and the record; CONFLICT when the id is taken. */
  async create(spec: SandboxSpec): Promise<{ record: SandboxRecord; paths: SandboxPaths }> {
    const record = this.recordFor(spec);
    const paths = this.paths(record.id);
    await mkdir(this.rootDir, { recursive: true });
    try {
      await mkdir(paths.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw sandboxError('sandbox_exists', `sandbox ${record.id} already exists`, {
        id: record.id,
      });
    }
    await mkdir(paths.workspace);
    await mkdir(paths.home);
    await writeFile(join(paths.root, 'sandbox.json'), `${JSON.stringify(record, null, 2)}\n`);
    return { record, paths };
  }

  /** Reads a sandbox's record; NOT_FOUND when it does not exist (or is another provider's). */
  async load(id: string): Promise<{ record: SandboxRecord; paths: SandboxPaths }> {
    const paths = this.paths(id);
    let text: string;
    try {
      text = await readFile(join(paths.root, 'sandbox.json'), 'utf8');
    } catch {
      throw sandboxError('sandbox_not_found', `sandbox ${id} does not exist`, { id });
    }
    const stored = JSON.parse(text) as SandboxRecord;
    // A record written before a limit existed gets today's default for it.
    const record = { ...stored, limits: { ...this.defaults.limits, ...stored.limits } };
    if (record.provider !== this.provider || !(await stat(paths.workspace)).isDirectory()) {
      throw sandboxError('sandbox_not_found', `sandbox ${id} is not a ${this.provider} sandbox`, {
        id,
      });
    }
    return { record, paths };
  }

  async remove(id: string): Promise<void> {
    const { paths } = await this.load(id);
    await rm(paths.root, { recursive: true, force: true });
  }

  get maxTimeoutMs(): number {
    return this.defaults.maxTimeoutMs;
  }

  private recordFor(spec: SandboxSpec): SandboxRecord {
    const limits = { ...this.defaults.limits, ...spec.limits };
    for (const [name, value] of Object.entries(limits)) {
      if (name === 'maxCpus') positiveNumber(name, value);
      else positiveInteger(name, value);
    }
    const defaultTimeoutMs = positiveInteger(
      'defaultTimeoutMs',
      spec.defaultTimeoutMs ?? this.defaults.defaultTimeoutMs,
    );
    if (defaultTimeoutMs > this.defaults.maxTimeoutMs) {
      throw sandboxError('invalid_input', `defaultTimeoutMs exceeds ${this.defaults.maxTimeoutMs}`);
    }
    return {
      id: spec.id ?? `sbx-${randomUUID()}`,
      provider: this.provider,
      env: Object.fromEntries(validateEnv(spec.env ?? {})),
      limits,
      defaultTimeoutMs,
      outputLimitBytes: positiveInteger(
        'outputLimitBytes',
        spec.outputLimitBytes ?? this.defaults.outputLimitBytes,
      ),
      createdAt: new Date().toISOString(),
    };
  }
}
