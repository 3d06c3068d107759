import { rm } from 'node:fs/promises';
import type { WorkdirFiles } from '../files/workdir-files.js';
import type {
  Sandbox,
  SandboxProvider,
  SandboxProviderName,
  SandboxSpec,
} from '../sandbox.types.js';
import type { BashSession } from '../session/bash-session.js';
import { SessionSandbox, type ResultAnnotator } from '../session-sandbox.js';
import {
  runOneShotProcess,
  type OneShotOptions,
  type OneShotResult,
  type OneShotRunner,
  type OneShotSpawn,
} from './one-shot.js';
import type { SandboxPaths, SandboxRecord, SandboxStore } from './sandbox-store.js';

/** What a concrete provider builds for one session. */
export interface OpenedSession {
  readonly session: BashSession;
  readonly files: WorkdirFiles;
  /** The workdir as commands see it. */
  readonly workdir: string;
  /** Adds the limits a command hit to its result (providers that watch their sandboxes). */
  readonly annotate?: ResultAnnotator;
}

/**
 * The lifecycle shared by providers whose sandbox is a host directory: create makes the directory
 * and opens a session (and removes the directory again if that fails, so a half-built sandbox is
 * never left to adopt); connect opens a new session on an existing directory; delete closes the
 * open sessions and removes it.
 */
export abstract class DirectoryProvider implements SandboxProvider, OneShotRunner {
  abstract readonly name: SandboxProviderName;
  private readonly sessions = new Map<string, Set<SessionSandbox>>();

  protected constructor(protected readonly store: SandboxStore) {}

  async create(spec: SandboxSpec = {}): Promise<Sandbox> {
    const { record, paths } = await this.store.create(spec);
    try {
      await this.prepare(paths);
      return await this.open(record, paths);
    } catch (error) {
      await rm(paths.root, { recursive: true, force: true });
      throw error;
    }
  }

  async connect(id: string): Promise<Sandbox> {
    const { record, paths } = await this.store.load(id);
    return this.open(record, paths);
  }

  async delete(id: string): Promise<void> {
    await this.store.load(id);
    const open = [...(this.sessions.get(id) ?? [])];
    await Promise.all(open.map((sandbox) => sandbox.close()));
    await this.store.remove(id);
  }

  /**
   * Runs `argv` in the sandbox's confinement as a process of its own (no session needed: a
   * reclaimed sandbox's session is gone), its standard output kept in a host file.
   */
  async runOneShot(
    id: string,
    argv: readonly string[],
    options: OneShotOptions,
  ): Promise<OneShotResult> {
    const { record, paths } = await this.store.load(id);
    return runOneShotProcess(await this.oneShotSpawn(record, paths, argv), options);
  }

  /** How to start one command confined like the sandbox's session (see `runOneShot`). */
  protected abstract oneShotSpawn(
    record: SandboxRecord,
    paths: SandboxPaths,
    argv: readonly string[],
  ): Promise<OneShotSpawn>;

  /** Makes a freshly created sandbox's directories ready (ownership and the like). */
  protected abstract prepare(paths: SandboxPaths): Promise<void>;

  /** Starts a session on a sandbox's directories. */
  protected abstract startSession(
    record: SandboxRecord,
    paths: SandboxPaths,
  ): Promise<OpenedSession>;

  private async open(record: SandboxRecord, paths: SandboxPaths): Promise<Sandbox> {
    const opened = await this.startSession(record, paths);
    const sandbox = new SessionSandbox(
      record.id,
      this.name,
      opened.workdir,
      opened.session,
      opened.files,
      (closed) => this.sessions.get(record.id)?.delete(closed),
      opened.annotate,
    );
    const set = this.sessions.get(record.id) ?? new Set<SessionSandbox>();
    set.add(sandbox);
    this.sessions.set(record.id, set);
    return sandbox;
  }
}
