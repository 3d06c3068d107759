import { z } from 'zod';
import { defineRequest } from '../define-request.js';
import { repositoryRef, threadId } from './common.js';

// Sandbox RPC: request/reply on `sandbox.<threadId>.<op>`, served by the sandbox broker. Every
// failure comes back as a coded AppError with its `details.reason` (see docs/sandbox.md).

const path = z.string().min(1).max(4096);
const timeoutMs = z.number().int().positive().max(3_600_000);
const env = z.record(z.string(), z.string());
/**
 * Names one request across its retries: a caller that got no answer sends the same request with
 * the same id, and the broker answers it with the first attempt's outcome instead of doing the
 * work twice (an edit applied once, not refused the second time as if it never happened).
 */
const requestId = z.uuid().optional();
/**
 * A long request's caller and call (a commit, push, diff or recreate, as `SandboxExec` has them):
 * while the broker works on it, it asks `SandboxCallerAlive` on `callerId` naming `callId`, so the
 * caller learns soon when that broker is gone instead of at the request's timeout. A request
 * without them is not probed.
 */
const watchedCall = { callerId: z.uuid().optional(), callId: z.uuid().optional() };

/** Where a thread's sandbox came from on this acquire. */
export const sandboxAcquireOutcome = z.enum(['reused', 'reconnected', 'created', 'replaced']);

/** A thread's sandbox as the broker hands it out. */
export const sandboxHandle = z.object({
  threadId,
  /** The provider's id of the sandbox (the directory name for `local`/`bwrap`). */
  sandboxId: z.string().min(1),
  provider: z.string().min(1),
  /** The workdir as commands inside the sandbox see it. */
  workdir: z.string().min(1),
  outcome: sandboxAcquireOutcome,
  /** The branch the thread's work lives on, and the commit the current run starts from. */
  branch: z.string().min(1),
  baseCommit: z.string().min(1),
  /** Where pushes go (`origin`), or null when the workspace has no remote. */
  origin: z.string().nullable(),
});
export type SandboxHandle = z.infer<typeof sandboxHandle>;

/**
 * The ref GitHub keeps in a base repository for the head of its pull request `N`, whoever's branch
 * it is (a fork's too): `refs/pull/<N>/head`. The only ref an acquire may start from, so no
 * refspec a person or a webhook wrote ever reaches git.
 */
export const pullRequestHeadRef = z
  .string()
  .regex(/^refs\/pull\/[1-9][0-9]{0,9}\/head$/, 'only refs/pull/<number>/head');

/** The {@link pullRequestHeadRef} of pull request `number`. */
export function pullRequestHeadRefOf(number: number): string {
  return pullRequestHeadRef.parse(`refs/pull/${number}/head`);
}

const acquireRequest = z.object({
  threadId,
  repository: repositoryRef.optional(),
  /** The branch to create on first setup. */
  branch: z.string().min(1).max(200),
  /** Replace an unreachable sandbox instead of failing. Only reviewer threads may pass it. */
  allowReplacement: z.boolean().optional(),
  /** Which kind of thread asks (the broker refuses `allowReplacement` for any other). */
  purpose: z.enum(['agent', 'reviewer']).default('agent'),
  /**
   * On first setup, start at the HEAD of this thread's sandbox (its commits, not its uncommitted
   * changes) instead of cloning the repository: a retry-and-select attempt starts where its thread is.
   */
  startFrom: threadId.optional(),
  /**
   * On first setup, start the branch at this ref of the thread's repository, fetched from it (a
   * fork's pull request, whose branch the App cannot push to, as the base repository exposes it).
   * Not with `startFrom`.
   */
  startRef: pullRequestHeadRef.optional(),
  /**
   * On first setup, start the branch at the repository's base even when the repository has the
   * branch already (a new sandbox otherwise continues the branch from its pushed head): the
   * branch's pull request was merged, so its commits are in the base.
   */
  atBase: z.boolean().optional(),
});

/** Gets the thread's sandbox: reuse, reconnect, or create (bound only after setup succeeded). */
export const SandboxAcquire = defineRequest({
  service: 'sandbox',
  op: 'acquire',
  description: "Get or create the thread's sandbox (never silently replaces one holding work).",
  request: acquireRequest.extend(watchedCall),
  response: sandboxHandle,
});

/** Asks the sandbox broker whether a thread's sandbox answers (and which provider holds it). */
export const SandboxPing = defineRequest({
  service: 'sandbox',
  op: 'ping',
  description: 'Health of the sandbox bound to a thread.',
  request: z.object({ threadId }),
  response: z.object({
    threadId,
    provider: z.string(),
    alive: z.boolean(),
  }),
});

/** The user asked for a fresh sandbox: the old one is retired and kept for recovery. */
export const SandboxRecreate = defineRequest({
  service: 'sandbox',
  op: 'recreate',
  description: 'Bind a new sandbox to the thread, keeping the old one (retired, not deleted).',
  request: acquireRequest
    .omit({ allowReplacement: true, purpose: true })
    .extend({ requestId, ...watchedCall }),
  response: sandboxHandle,
});

/** The run is done with the sandbox for now: its session ends, its work stays. */
export const SandboxRelease = defineRequest({
  service: 'sandbox',
  op: 'release',
  description: "End the thread's sandbox session (the workdir is kept).",
  request: z.object({ threadId }),
  response: z.object({ released: z.boolean() }),
});

/** The sandbox's work is recorded elsewhere (an attempt's trajectory): delete it now. */
export const SandboxDiscard = defineRequest({
  service: 'sandbox',
  op: 'discard',
  description: "Delete the thread's sandbox and retire its binding (nothing is kept).",
  request: z.object({ requestId, threadId }),
  response: z.object({ discarded: z.boolean() }),
});

export const sandboxExecResult = z.object({
  exitCode: z.number().int(),
  output: z.string(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  outputBytes: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
});

/** Runs a command in the thread's persistent session. */
export const SandboxExec = defineRequest({
  service: 'sandbox',
  op: 'exec',
  description: "Run a command in the thread's sandbox session.",
  request: z.object({
    threadId,
    command: z.string().max(1_000_000),
    timeoutMs: timeoutMs.optional(),
    env: env.optional(),
    /**
     * The caller's id: while the command runs the broker asks `SandboxCallerAlive` on it, and
     * abandons the command (ends the session) once the caller is gone.
     */
    callerId: z.uuid().optional(),
    /**
     * This call's id (with `callerId`): the broker's liveness probes name it, so the caller learns
     * at once when the broker running its command is gone, not at the command's timeout.
     */
    callId: z.uuid().optional(),
    /**
     * Stream the command's output to the caller while it runs (`SandboxExecOutput` on
     * `sandbox-caller.<callerId>.output`, tagged with this id). Needs `callerId`.
     */
    streamId: z.uuid().optional(),
  }),
  response: sandboxExecResult,
});

/** Answered by a sandbox client while a call of its runs (`sandbox-caller.<callerId>.alive`). */
export const SandboxCallerAlive = defineRequest({
  service: 'sandbox-caller',
  op: 'alive',
  description: 'Liveness of a client waiting on a sandbox command or long request.',
  request: z.object({
    callerId: z.uuid(),
    /** The call this probe is sent for (its `callId`), and how often the broker sends one. */
    callId: z.uuid().optional(),
    everyMs: z.number().int().positive().optional(),
  }),
  response: z.object({ alive: z.literal(true) }),
});

export const SandboxRead = defineRequest({
  service: 'sandbox',
  op: 'read',
  description: 'Read a text file of the workdir.',
  request: z.object({ threadId, path }),
  response: z.object({ content: z.string() }),
});

export const SandboxWrite = defineRequest({
  service: 'sandbox',
  op: 'write',
  description: 'Write a file of the workdir (text, or base64 bytes).',
  request: z.object({
    requestId,
    threadId,
    path,
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).default('utf8'),
  }),
  response: z.object({ written: z.literal(true) }),
});

export const SandboxEdit = defineRequest({
  service: 'sandbox',
  op: 'edit',
  description: 'Replace exact text in a file of the workdir.',
  request: z.object({
    requestId,
    threadId,
    path,
    oldText: z.string().min(1),
    newText: z.string(),
    replaceAll: z.boolean().optional(),
  }),
  response: z.object({ replacements: z.number().int().nonnegative() }),
});

const fileEntry = z.object({
  path: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']),
  size: z.number().nonnegative(),
});

export const SandboxList = defineRequest({
  service: 'sandbox',
  op: 'list',
  description: 'List a directory of the workdir.',
  request: z.object({
    threadId,
    path: path.optional(),
    recursive: z.boolean().optional(),
    maxEntries: z.number().int().positive().optional(),
  }),
  response: z.object({ entries: z.array(fileEntry), truncated: z.boolean() }),
});

export const SandboxGlob = defineRequest({
  service: 'sandbox',
  op: 'glob',
  description: 'Workdir files matching a glob.',
  request: z.object({
    threadId,
    pattern: z.string().min(1),
    maxResults: z.number().int().positive().optional(),
  }),
  response: z.object({ paths: z.array(z.string()) }),
});

export const SandboxGrep = defineRequest({
  service: 'sandbox',
  op: 'grep',
  description: 'Search the workdir for a string or a regular expression.',
  request: z.object({
    threadId,
    pattern: z.string().min(1),
    regex: z.boolean().optional(),
    ignoreCase: z.boolean().optional(),
    path: path.optional(),
    include: z.string().min(1).optional(),
    maxMatches: z.number().int().positive().optional(),
  }),
  response: z.object({
    matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
    truncated: z.boolean(),
  }),
});

const messageId = z.string().min(1).max(100);

export const SandboxTurnSnapshot = defineRequest({
  service: 'sandbox',
  op: 'turn-snapshot',
  description: 'Record the worktree at the start of a turn (refs/caravel/turns/<messageId>).',
  request: z.object({ threadId, messageId, repoPath: path.optional() }),
  response: z.object({
    messageId: z.string(),
    ref: z.string(),
    commit: z.string(),
    created: z.boolean(),
  }),
});

export const SandboxTurnDiff = defineRequest({
  service: 'sandbox',
  op: 'turn-diff',
  description: 'Files changed between two turn checkpoints (or a checkpoint and the worktree).',
  request: z.object({
    threadId,
    from: messageId,
    to: messageId,
    repoPath: path.optional(),
    maxFiles: z.number().int().positive().optional(),
  }),
  response: z.object({
    files: z.array(
      z.object({
        path: z.string(),
        status: z.enum(['added', 'modified', 'deleted', 'type-changed']),
      }),
    ),
    truncated: z.boolean(),
    totalFiles: z.number().int().nonnegative(),
  }),
});

export const SandboxGitCommit = defineRequest({
  service: 'sandbox',
  op: 'git-commit',
  description: 'Stage everything and commit it as the bot (no commit when nothing changed).',
  request: z.object({
    requestId,
    threadId,
    message: z.string().min(1).max(10_000),
    ...watchedCall,
  }),
  response: z.object({ commitSha: z.string().nullable() }),
});

export const SandboxGitDiff = defineRequest({
  service: 'sandbox',
  op: 'git-diff',
  description: 'Everything since a base commit, committed or not, new files included.',
  request: z.object({ threadId, baseRef: z.string().min(1).max(200), ...watchedCall }),
  response: z.object({ diff: z.string() }),
});

/**
 * Publishes the thread's branch: with a commit message, everything is committed first; then the
 * branch leaves the sandbox as objects and is pushed, from outside it, to the thread's repository
 * as named here (the record), never to a remote the workdir names.
 */
export const SandboxGitPush = defineRequest({
  service: 'sandbox',
  op: 'git-push',
  description: "Commit (optionally) and push the thread's branch to its repository on record.",
  request: z.object({
    requestId,
    threadId,
    branch: z.string().min(1).max(200),
    /** The thread's repository; absent: there is nowhere to push (`pushed: false`). */
    repository: repositoryRef.optional(),
    commitMessage: z.string().min(1).max(10_000).optional(),
    ...watchedCall,
  }),
  response: z.object({
    pushed: z.boolean(),
    /** The URL pushed to (no credentials in it), or null. */
    origin: z.string().nullable(),
    /** The commit made for `commitMessage`; null when none was asked or nothing had changed. */
    commitSha: z.string().nullable(),
  }),
});

/** Every sandbox request the broker serves (the caller-liveness probe is the client's). */
export const SANDBOX_REQUESTS = [
  SandboxAcquire,
  SandboxPing,
  SandboxRecreate,
  SandboxRelease,
  SandboxDiscard,
  SandboxExec,
  SandboxRead,
  SandboxWrite,
  SandboxEdit,
  SandboxList,
  SandboxGlob,
  SandboxGrep,
  SandboxTurnSnapshot,
  SandboxTurnDiff,
  SandboxGitCommit,
  SandboxGitDiff,
  SandboxGitPush,
] as const;
