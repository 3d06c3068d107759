import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PatchSplit } from './patch-split.js';
import {
  SOLVE_SH,
  skeletonDockerfile,
  skeletonTestSh,
  taskToml,
  type EnvironmentFacts,
  type TaskMetadata,
} from './skeleton.js';

/** Everything a task skeleton is written from. */
export interface SkeletonInput {
  readonly split: PatchSplit;
  readonly facts: EnvironmentFacts;
  readonly metadata: TaskMetadata;
  readonly instruction: string;
}

async function put(file: string, content: string | Buffer, mode = 0o644): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  await chmod(file, mode);
}

/**
 * Writes the Harbor task skeleton into an empty directory: environment/{Dockerfile,bug.patch},
 * tests/{test.sh,<test files>}, solution/{fix.patch,solve.sh}, instruction.md (the instruction
 * verbatim) and task.toml. The scripts are executable.
 */
export async function writeTaskSkeleton(taskDir: string, input: SkeletonInput): Promise<void> {
  await put(join(taskDir, 'environment', 'Dockerfile'), skeletonDockerfile(input.facts));
  await put(join(taskDir, 'environment', 'bug.patch'), input.split.bugPatch);
  for (const test of input.split.testFiles)
    await put(join(taskDir, 'tests', test.taskPath), test.content);
  await put(join(taskDir, 'tests', 'test.sh'), skeletonTestSh(input.split.testFiles), 0o755);
  await put(join(taskDir, 'solution', 'fix.patch'), input.split.fixPatch);
  await put(join(taskDir, 'solution', 'solve.sh'), SOLVE_SH, 0o755);
  await put(join(taskDir, 'instruction.md'), input.instruction);
  await put(join(taskDir, 'task.toml'), taskToml(input.metadata));
}
