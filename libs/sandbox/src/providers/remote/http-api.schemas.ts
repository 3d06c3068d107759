import { z } from 'zod';

/**
 * The sandbox HTTP API (v1) that `HttpApiSandboxProvider` speaks, defined once: the provider
 * validates answers with these schemas and the loopback fake validates requests with them.
 * Routes (all JSON; errors are `{ error: { reason, message } }` with an HTTP status):
 *
 * | Route                                               | Body / query                              | Answer                          |
 * | --------------------------------------------------- | ----------------------------------------- | ------------------------------- |
 * | `POST /v1/sandboxes`                                | `CreateSandboxBody`                       | 201 `SandboxInfo`               |
 * | `DELETE /v1/sandboxes/:id`                          |                                           | 204                             |
 * | `POST /v1/sandboxes/:id/sessions`                   |                                           | 201 `SessionInfo`               |
 * | `DELETE /v1/sandboxes/:id/sessions/:sessionId`      |                                           | 204                             |
 * | `POST /v1/sandboxes/:id/sessions/:sessionId/exec`   | `ExecBody`                                | 200 `ExecAnswer`                |
 * | `GET /v1/sandboxes/:id/files/content`               | `?path=`                                  | 200 `{ content }` (UTF-8)       |
 * | `PUT /v1/sandboxes/:id/files/content`               | `WriteFileBody`                           | 204                             |
 * | `POST /v1/sandboxes/:id/files/edit`                 | `EditFileBody`                            | 200 `{ replacements }`          |
 * | `GET /v1/sandboxes/:id/files`                       | `?path=&recursive=&maxEntries=`           | 200 `ListFilesResult`           |
 * | `GET /v1/sandboxes/:id/files/glob`                  | `?pattern=&maxResults=`                   | 200 `{ paths }`                 |
 * | `GET /v1/sandboxes/:id/files/grep`                  | `?pattern=&regex=&ignoreCase=&path=&include=&maxMatches=` | 200 `GrepResult` |
 */
export const HTTP_API_PREFIX = '/v1/sandboxes';

const count = z.number().int().nonnegative();
const env = z.record(z.string(), z.string());

export const createSandboxBody = z.strictObject({
  id: z.string().optional(),
  env: env.optional(),
  limits: z
    .strictObject({
      maxProcesses: count.optional(),
      maxMemoryBytes: count.optional(),
      maxFileBytes: count.optional(),
      maxOpenFiles: count.optional(),
    })
    .optional(),
  defaultTimeoutMs: count.optional(),
  outputLimitBytes: count.optional(),
});

export const sandboxInfo = z.object({
  id: z.string().min(1),
  workdir: z.string().min(1),
  defaultTimeoutMs: z.number().int().positive(),
});

export const sessionInfo = sandboxInfo.extend({ sessionId: z.string().min(1) });

export const execBody = z.strictObject({
  command: z.string(),
  timeoutMs: z.number().positive().optional(),
  env: env.optional(),
});

export const execAnswer = z.object({
  exitCode: z.number().int(),
  output: z.string(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  outputBytes: count,
});

export const writeFileBody = z.strictObject({
  path: z.string(),
  content: z.string(),
  encoding: z.enum(['utf8', 'base64']),
});

export const editFileBody = z.strictObject({
  path: z.string(),
  oldText: z.string(),
  newText: z.string(),
  replaceAll: z.boolean().optional(),
});

export const fileContent = z.object({ content: z.string() });
export const editAnswer = z.object({ replacements: count });

export const listAnswer = z.object({
  entries: z.array(
    z.object({
      path: z.string(),
      type: z.enum(['file', 'directory', 'symlink', 'other']),
      size: count,
    }),
  ),
  truncated: z.boolean(),
});

export const globAnswer = z.object({ paths: z.array(z.string()) });

export const grepAnswer = z.object({
  matches: z.array(z.object({ path: z.string(), line: count, text: z.string() })),
  truncated: z.boolean(),
});
