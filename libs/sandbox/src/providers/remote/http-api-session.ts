import type {
  EditFileOptions,
  ExecOptions,
  GrepOptions,
  GrepResult,
  ListFilesOptions,
  ListFilesResult,
} from '../../sandbox.types.js';
import {
  editAnswer,
  execAnswer,
  fileContent,
  globAnswer,
  grepAnswer,
  HTTP_API_PREFIX,
  listAnswer,
  type sessionInfo,
} from './http-api.schemas.js';
import type { RemoteHttpClient } from './remote-http-client.js';
import type { RemoteExecResult, RemoteSession } from './remote-sandbox.js';
import type { z } from 'zod';

/** One session of the sandbox HTTP API (v1): exec on the session, files on the sandbox. */
export class HttpApiSession implements RemoteSession {
  readonly sandboxId: string;
  readonly workdir: string;
  readonly defaultTimeoutMs: number;
  private readonly sandboxPath: string;
  private readonly sessionPath: string;

  constructor(
    private readonly http: RemoteHttpClient,
    info: z.infer<typeof sessionInfo>,
  ) {
    this.sandboxId = info.id;
    this.workdir = info.workdir;
    this.defaultTimeoutMs = info.defaultTimeoutMs;
    this.sandboxPath = `${HTTP_API_PREFIX}/${encodeURIComponent(info.id)}`;
    this.sessionPath = `${this.sandboxPath}/sessions/${encodeURIComponent(info.sessionId)}`;
  }

  exec(command: string, options: ExecOptions, requestTimeoutMs: number): Promise<RemoteExecResult> {
    return this.http.request({
      method: 'POST',
      path: `${this.sessionPath}/exec`,
      body: { command, timeoutMs: options.timeoutMs, env: options.env },
      schema: execAnswer,
      timeoutMs: requestTimeoutMs,
    });
  }

  async readFile(path: string): Promise<string> {
    const answer = await this.http.request({
      method: 'GET',
      path: `${this.sandboxPath}/files/content`,
      query: { path },
      schema: fileContent,
    });
    return answer.content;
  }

  writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const body =
      typeof content === 'string'
        ? { path, content, encoding: 'utf8' }
        : { path, content: Buffer.from(content).toString('base64'), encoding: 'base64' };
    return this.http.request({ method: 'PUT', path: `${this.sandboxPath}/files/content`, body });
  }

  editFile(
    path: string,
    oldText: string,
    newText: string,
    options: EditFileOptions,
  ): Promise<{ replacements: number }> {
    return this.http.request({
      method: 'POST',
      path: `${this.sandboxPath}/files/edit`,
      body: { path, oldText, newText, replaceAll: options.replaceAll ?? false },
      schema: editAnswer,
    });
  }

  listFiles(path: string | undefined, options: ListFilesOptions): Promise<ListFilesResult> {
    return this.http.request({
      method: 'GET',
      path: `${this.sandboxPath}/files`,
      query: { path, recursive: options.recursive, maxEntries: options.maxEntries },
      schema: listAnswer,
    });
  }

  async glob(pattern: string, options: { maxResults?: number }): Promise<string[]> {
    const answer = await this.http.request({
      method: 'GET',
      path: `${this.sandboxPath}/files/glob`,
      query: { pattern, maxResults: options.maxResults },
      schema: globAnswer,
    });
    return answer.paths;
  }

  grep(pattern: string, options: GrepOptions): Promise<GrepResult> {
    return this.http.request({
      method: 'GET',
      path: `${this.sandboxPath}/files/grep`,
      query: { pattern, ...options },
      schema: grepAnswer,
    });
  }

  close(): Promise<void> {
    return this.http.request({ method: 'DELETE', path: this.sessionPath });
  }
}
