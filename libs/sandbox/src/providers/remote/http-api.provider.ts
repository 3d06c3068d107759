import type { SandboxSpec } from '../../sandbox.types.js';
import { HttpApiSession } from './http-api-session.js';
import { HTTP_API_PREFIX, sandboxInfo, sessionInfo } from './http-api.schemas.js';
import { RemoteSandboxProvider, type RemoteProviderOptions } from './remote.provider.js';
import type { RemoteSession } from './remote-sandbox.js';

/** Settings of `HttpApiSandboxProvider` (see `RemoteProviderOptions`). */
export type HttpApiProviderOptions = RemoteProviderOptions;

/**
 * The `remote` provider for a service speaking the sandbox HTTP API v1 (routes in
 * `http-api.schemas.ts` and docs/sandbox.md): `POST /v1/sandboxes`, a session per `connect`,
 * `exec` in that session, file endpoints on the sandbox, `DELETE` to remove it. The service keeps
 * the session semantics (persistent cwd/env, timeouts, output caps); this side adds ordering and
 * request limits, and maps HTTP failures to coded sandbox errors.
 */
export class HttpApiSandboxProvider extends RemoteSandboxProvider {
  constructor(options: HttpApiProviderOptions) {
    super(options);
  }

  protected async createSandbox(spec: SandboxSpec): Promise<string> {
    const info = await this.http.request({
      method: 'POST',
      path: HTTP_API_PREFIX,
      body: spec,
      schema: sandboxInfo,
    });
    return info.id;
  }

  protected async openSession(id: string): Promise<RemoteSession> {
    const info = await this.http.request({
      method: 'POST',
      path: `${HTTP_API_PREFIX}/${encodeURIComponent(id)}/sessions`,
      schema: sessionInfo,
    });
    return new HttpApiSession(this.http, info);
  }

  protected deleteSandbox(id: string): Promise<void> {
    return this.http.request({
      method: 'DELETE',
      path: `${HTTP_API_PREFIX}/${encodeURIComponent(id)}`,
    });
  }
}
