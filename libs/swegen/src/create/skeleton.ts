import type { TestFilePlacement } from '../rules/test-layout.js';

/** Marks the lines the skeleton-completion agent must replace. */
export const TODO_MARKER = 'TODO(swegen)';

/** The placeholder test command in a fresh test.sh: it fails until the agent replaces it. */
export const TEST_COMMAND_PLACEHOLDER = 'false';

/** Facts of the PR the environment is built from. */
export interface EnvironmentFacts {
  readonly cloneUrl: string;
  readonly headSha: string;
  readonly prNumber: number;
}

/**
 * The skeleton Dockerfile: the repository fetched at the PR head (not the merge commit), a TODO
 * region for the runtime, dependencies and build, then `git reset --hard` (undoing lockfile churn
 * of the install), `bug.patch` applied to recreate the buggy state, and `.git` removed.
 */
export function skeletonDockerfile(facts: EnvironmentFacts): string {
  const pr = facts.prNumber;
  return [
    'FROM ubuntu:24.04',
    '',
    'ENV DEBIAN_FRONTEND=noninteractive',
    'RUN apt-get update && apt-get install -y --no-install-recommends git curl ca-certificates patch build-essential && rm -rf /var/lib/apt/lists/*',
    '',
    'WORKDIR /app',
    `RUN git init src && cd src && git remote add origin ${facts.cloneUrl} && \\`,
    `    (git fetch --depth 1 origin ${facts.headSha} || git fetch --depth 1 origin "+refs/pull/${pr}/head:refs/remotes/origin/pr/${pr}") && \\`,
    '    git checkout --detach FETCH_HEAD && git submodule update --init --recursive',
    'WORKDIR /app/src',
    '',
    `# ${TODO_MARKER}: install the language runtime, the project's dependencies, and build it.`,
    '',
    'RUN git reset --hard',
    'COPY bug.patch /tmp/bug.patch',
    'RUN patch -p1 < /tmp/bug.patch && rm /tmp/bug.patch',
    `# ${TODO_MARKER}: rebuild here if the project needs a build after the patch.`,
    'RUN rm -rf /app/src/.git',
    '',
  ].join('\n');
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '.' : path.slice(0, slash);
}

/**
 * The skeleton test.sh: copies each extracted test file from /tests back into the repository
 * (one `mkdir -p` and one `cp` per file, in order), runs the test command (a failing placeholder
 * until the agent fills it in), and writes the reward file from its exit status.
 */
export function skeletonTestSh(tests: readonly TestFilePlacement[]): string {
  const copies = tests.flatMap((t) => [
    `mkdir -p "${dirOf(t.repoPath)}"`,
    `cp "/tests/${t.taskPath}" "${t.repoPath}"`,
  ]);
  return [
    '#!/bin/bash',
    '',
    'cd /app/src',
    '',
    '# Tests run with no network: everything they need was installed when the environment was built.',
    '# Do not install packages or fetch anything here.',
    '',
    ...copies,
    '',
    `# ${TODO_MARKER}: replace the next line with the command that runs the test files above.`,
    TEST_COMMAND_PLACEHOLDER,
    'test_status=$?',
    '',
    'if [ "$test_status" -eq 0 ]; then',
    '  echo 1 > /logs/verifier/reward.txt',
    'else',
    '  echo 0 > /logs/verifier/reward.txt',
    'fi',
    'exit "$test_status"',
    '',
  ].join('\n');
}

/** solve.sh: the oracle applies the fix. */
export const SOLVE_SH =
  '#!/bin/bash\n\nset -euo pipefail\ncd /app/src\n\npatch -p1 < /solution/fix.patch\n';

/** The task's metadata, as the evaluation step produced it plus the PR's facts. */
export interface TaskMetadata {
  readonly difficulty: 'easy' | 'medium' | 'hard';
  readonly category: string;
  readonly tags: readonly string[];
  readonly sourceRepo: string;
  readonly sourcePr: number;
  readonly baseSha: string;
  readonly headSha: string;
  readonly taskName?: string;
}

/** A TOML basic string (JSON's escapes are a subset TOML accepts). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/**
 * task.toml in Harbor's current schema, written deterministically with one fixed key set:
 * 600 s for the verifier, the agent and the build, 1 cpu, 2 GiB, and no network at run time.
 */
export function taskToml(meta: TaskMetadata): string {
  const lines = [
    'schema_version = "1.3"',
    '',
    '[metadata]',
    `difficulty = ${tomlString(meta.difficulty)}`,
    `category = ${tomlString(meta.category)}`,
    `tags = [${meta.tags.map(tomlString).join(', ')}]`,
    `source_repo = ${tomlString(meta.sourceRepo)}`,
    `source_pr = ${meta.sourcePr}`,
    `base_sha = ${tomlString(meta.baseSha)}`,
    `head_sha = ${tomlString(meta.headSha)}`,
    ...(meta.taskName ? [`task_name = ${tomlString(meta.taskName)}`] : []),
    '',
    '[verifier]',
    'timeout_sec = 600.0',
    '',
    '[agent]',
    'timeout_sec = 600.0',
    '',
    '[environment]',
    'build_timeout_sec = 600.0',
    'cpus = 1',
    'memory_mb = 2048',
    'storage_mb = 10240',
    'network_mode = "no-network"',
    '',
  ];
  return lines.join('\n');
}
