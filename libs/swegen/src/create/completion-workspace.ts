import type { Sandbox } from '@caravel/sandbox';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { TaskValidation } from '../validate/validation-result.js';

const run = promisify(execFile);

/** The files the completion agent may change; everything else of the task stays as generated. */
export const EDITABLE_TASK_FILES = [
  'environment/Dockerfile',
  'tests/test.sh',
  'solution/solve.sh',
] as const;

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * Fills a fresh sandbox workspace: the task skeleton under task/ (written through the sandbox, so
 * its owner is the sandbox user) and the repository at head under repo/ (exported on the host
 * with `git archive`, readable by everyone).
 */
export async function copyTaskIn(
  sandbox: Sandbox,
  hostWorkspace: string,
  taskDir: string,
  repoPath: string,
  headSha: string,
): Promise<void> {
  for await (const file of walk(taskDir)) {
    await sandbox.writeFile(`task/${relative(taskDir, file)}`, await readFile(file));
  }
  const repoDir = join(hostWorkspace, 'repo');
  await mkdir(repoDir, { recursive: true });
  const archive = join(tmpdir(), `caravel-swegen-${sandbox.id}.tar`);
  try {
    await run('git', [
      '-c',
      'safe.directory=*',
      '-C',
      repoPath,
      'archive',
      '--format=tar',
      '-o',
      archive,
      headSha,
    ]);
    await run('tar', ['-xf', archive, '-C', repoDir, '--no-same-owner']);
  } finally {
    await rm(archive, { force: true });
  }
}

/** Copies the editable files from the sandbox back into the task directory. */
export async function syncEditableFiles(sandbox: Sandbox, taskDir: string): Promise<void> {
  for (const path of EDITABLE_TASK_FILES) {
    const content = await sandbox.readFile(`task/${path}`).catch(() => undefined);
    if (content !== undefined) {
      await writeFile(join(taskDir, path), content, { mode: path.endsWith('.sh') ? 0o755 : 0o644 });
    }
  }
}

async function lastLines(file: string, count: number): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-count).join('\n');
}

/** The end of the build log and of each trial's test output, for the agent to read. */
export async function tailOf(result: TaskValidation): Promise<string> {
  const parts: string[] = [];
  for (const trial of [result.nop, result.oracle]) {
    if (!trial.logDir) continue;
    const out = await lastLines(join(trial.logDir, 'verifier', 'test-stdout.txt'), 30);
    parts.push(`--- ${trial.agent} test output (end) ---\n${out || '(none)'}`);
  }
  const build = result.buildLog ? await lastLines(result.buildLog, 30) : '';
  if (build) parts.unshift(`--- build log (end) ---\n${build}`);
  return parts.join('\n');
}

/** A fingerprint of the editable files, to tell whether they changed since a validation. */
export async function editableFingerprint(taskDir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const path of EDITABLE_TASK_FILES) {
    hash
      .update(path)
      .update('\0')
      .update(await readFile(join(taskDir, path)).catch(() => Buffer.alloc(0)))
      .update('\0');
  }
  return hash.digest('hex');
}
