import { z } from 'zod';
import type { LocalSandboxProvider } from '../../local.provider.js';
import { DEFAULT_SANDBOX_SETTINGS, SandboxStore } from '../../sandbox-store.js';
import { sandboxError } from '../../../sandbox.errors.js';
import type { Sandbox } from '../../../sandbox.types.js';
import { createSandboxBody, editFileBody, execBody, writeFileBody } from '../http-api.schemas.js';

/** What a route answers: a status and a JSON body (none for 204). */
export interface RouteAnswer {
  readonly status: number;
  readonly body?: unknown;
}

/** The parsed parts of a request a route reads. */
export interface RouteInput {
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
}

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');
const listQuery = z.object({
  path: z.string().optional(),
  recursive: flag.optional(),
  maxEntries: z.coerce.number().int().positive().optional(),
});
const globQuery = z.object({
  pattern: z.string(),
  maxResults: z.coerce.number().int().positive().optional(),
});
const grepQuery = z.object({
  pattern: z.string(),
  regex: flag.optional(),
  ignoreCase: flag.optional(),
  path: z.string().optional(),
  include: z.string().optional(),
  maxMatches: z.coerce.number().int().positive().optional(),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw sandboxError(
    'invalid_input',
    `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
  );
}

/**
 * The fake service's routes over the `local` provider. Each session of the API is one local
 * sandbox session; file routes use a session of the same sandbox (opened on demand).
 */
export class SandboxServiceRoutes {
  private readonly sessions = new Map<string, { sandboxId: string; sandbox: Sandbox }>();
  private readonly store: SandboxStore;

  constructor(
    private readonly local: LocalSandboxProvider,
    private readonly newId: () => string,
    rootDir: string,
  ) {
    this.store = new SandboxStore(rootDir, 'local', DEFAULT_SANDBOX_SETTINGS);
  }

  /** Runs the route for `method` and the path segments after `/v1/sandboxes`. */
  async dispatch(method: string, segments: string[], input: RouteInput): Promise<RouteAnswer> {
    const [id, kind, sub, action] = segments;
    const shape = [
      method,
      id === undefined ? '' : ':id',
      kind,
      sub && kind === 'sessions' ? ':session' : sub,
      action,
    ]
      .filter((part) => part !== undefined)
      .join(' ');
    switch (shape) {
      case 'POST ':
        return this.create(input);
      case 'DELETE :id':
        return this.remove(id ?? '');
      case 'POST :id sessions':
        return { status: 201, body: await this.openSession(id ?? '') };
      case 'DELETE :id sessions :session':
        await this.session(id ?? '', sub ?? '').sandbox.close();
        this.sessions.delete(sub ?? '');
        return { status: 204 };
      case 'POST :id sessions :session exec':
        return this.exec(id ?? '', sub ?? '', input);
      default:
        return this.files(`${method} ${kind ?? ''} ${sub ?? ''}`.trim(), id ?? '', input);
    }
  }

  /** Closes every open session (when the fake stops). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map(({ sandbox }) => sandbox.close()));
    this.sessions.clear();
  }

  private async create(input: RouteInput): Promise<RouteAnswer> {
    const spec = parse(createSandboxBody, input.body);
    const sandbox = await this.local.create(spec);
    // The create call's own session is not one the client asked for.
    await sandbox.close();
    return { status: 201, body: await this.info(sandbox.id) };
  }

  private async remove(id: string): Promise<RouteAnswer> {
    for (const [sessionId, open] of this.sessions) {
      if (open.sandboxId === id) this.sessions.delete(sessionId);
    }
    await this.local.delete(id);
    return { status: 204 };
  }

  private async openSession(id: string): Promise<object> {
    const info = await this.info(id);
    const sandbox = await this.local.connect(id);
    const sessionId = this.newId();
    this.sessions.set(sessionId, { sandboxId: id, sandbox });
    return { ...info, sessionId };
  }

  private async exec(id: string, sessionId: string, input: RouteInput): Promise<RouteAnswer> {
    const request = parse(execBody, input.body);
    const result = await this.session(id, sessionId).sandbox.exec(request.command, {
      ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
      ...(request.env ? { env: request.env } : {}),
    });
    const { elapsedMs: _elapsed, ...answer } = result;
    return { status: 200, body: answer };
  }

  private async files(route: string, id: string, input: RouteInput): Promise<RouteAnswer> {
    const box = await this.anySession(id);
    switch (route) {
      case 'GET files content': {
        const { path } = parse(z.object({ path: z.string() }), input.query);
        return { status: 200, body: { content: await box.readFile(path) } };
      }
      case 'PUT files content': {
        const write = parse(writeFileBody, input.body);
        const bytes = write.encoding === 'base64' ? Buffer.from(write.content, 'base64') : null;
        await box.writeFile(write.path, bytes ?? write.content);
        return { status: 204 };
      }
      case 'POST files edit': {
        const edit = parse(editFileBody, input.body);
        const options = { replaceAll: edit.replaceAll ?? false };
        return {
          status: 200,
          body: await box.editFile(edit.path, edit.oldText, edit.newText, options),
        };
      }
      case 'GET files': {
        const { path, ...options } = parse(listQuery, input.query);
        return { status: 200, body: await box.listFiles(path, options) };
      }
      case 'GET files glob': {
        const { pattern, ...options } = parse(globQuery, input.query);
        return { status: 200, body: { paths: await box.glob(pattern, options) } };
      }
      case 'GET files grep': {
        const { pattern, ...options } = parse(grepQuery, input.query);
        return { status: 200, body: await box.grep(pattern, options) };
      }
      default:
        throw sandboxError('invalid_input', `no route ${route}`);
    }
  }

  private async info(id: string): Promise<object> {
    const { record } = await this.store.load(id);
    return {
      id,
      workdir: this.store.paths(id).workspace,
      defaultTimeoutMs: record.defaultTimeoutMs,
    };
  }

  private session(id: string, sessionId: string): { sandboxId: string; sandbox: Sandbox } {
    const open = this.sessions.get(sessionId);
    if (!open || open.sandboxId !== id) {
      throw sandboxError('sandbox_not_found', `no session ${sessionId} on sandbox ${id}`);
    }
    return open;
  }

  private async anySession(id: string): Promise<Sandbox> {
    for (const open of this.sessions.values()) if (open.sandboxId === id) return open.sandbox;
    await this.openSession(id);
    return this.anySession(id);
  }
}
