import { CLOCK, type Clock } from '@caravel/config';
import { ConnectTenantRepository } from '@caravel/db';
import { IntegrationAdapters } from '@caravel/integrations';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { commentIdOf, mapConfluenceComment } from '../events/confluence-event.mapper.js';
import { readUntrustedJson, storable } from '../events/untrusted-json.js';
import { payloadMalformed, signatureInvalid } from '../ingress.errors.js';
import { INGRESS_CONFIG, type IngressConfig } from '../ingress.config.js';
import { connectJwtIssuer, verifyConnectJwt } from '../verification/connect-jwt.verifier.js';
import { verifyInstallJwt } from '../verification/connect-install.verifier.js';
import { headerValue } from '../verification/headers.js';
import { connectDescriptor } from './connect-descriptor.js';
import {
  CONNECT_SECRET_KEYS,
  ConnectSecretCipher,
  connectSetupWarning,
} from './connect-secrets.js';
import { ConnectKeys } from './connect-keys.js';
import { TriggerIntakeService } from './trigger-intake.service.js';
import type { WebhookAnswer } from './webhook-answer.js';

/** A request to a `/connect` route as received: method, path, query, headers, raw bytes. */
export interface ConnectCall {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

const lifecycleBody = z.object({
  key: z.string().min(1),
  clientKey: z.string().min(1),
  baseUrl: z.url(),
  productType: z.string().min(1).default('confluence'),
  sharedSecret: z.string().min(1).optional(),
});

/**
 * The private Atlassian Connect app: its descriptor, its RS256-signed lifecycle callbacks (the
 * tenant's shared secret is sealed before it is stored) and `comment_created`, verified with the
 * tenant's secret and `qsh`, whose comment is then re-fetched as the service account.
 */
@Injectable()
export class ConfluenceConnectService implements OnApplicationBootstrap {
  private readonly log = new Logger('ConfluenceConnect');
  private readonly keys: ConnectKeys;
  private readonly cipher: ConnectSecretCipher | undefined;

  constructor(
    private readonly tenants: ConnectTenantRepository,
    private readonly intake: TriggerIntakeService,
    @Inject(INGRESS_CONFIG) private readonly config: IngressConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(IntegrationAdapters) private readonly adapters: IntegrationAdapters,
  ) {
    this.keys = new ConnectKeys(config.confluence.connectKeysUrl);
    const ring = config.connectSecretKeys;
    this.cipher = ring ? new ConnectSecretCipher(ring) : undefined;
  }

  onApplicationBootstrap(): void {
    const warning = connectSetupWarning(this.config);
    if (warning) this.log.warn(warning);
  }

  /** The descriptor; null while Caravel's base URL is unset. */
  descriptor(): Record<string, unknown> | null {
    const { baseUrl, appKey } = this.config.confluence;
    return baseUrl ? connectDescriptor(appKey, baseUrl) : null;
  }

  async installed(call: ConnectCall): Promise<WebhookAnswer> {
    const { body, cipher } = await this.verifiedLifecycle(call);
    if (!body.sharedSecret) throw payloadMalformed('confluence', 'installed without sharedSecret');
    const sealed = cipher.seal(body.clientKey, body.sharedSecret);
    await this.tenants.install({
      clientKey: body.clientKey,
      baseUrl: body.baseUrl,
      productType: body.productType,
      sealedSecret: sealed.ciphertext,
      keyId: sealed.keyId,
      at: this.clock.now(),
    });
    return { status: 200, body: { ok: true } };
  }

  async uninstalled(call: ConnectCall): Promise<WebhookAnswer> {
    const { body } = await this.verifiedLifecycle(call);
    await this.tenants.uninstall(body.clientKey, this.clock.now());
    return { status: 200, body: { ok: true } };
  }

  async commentCreated(call: ConnectCall): Promise<WebhookAnswer> {
    const { base, cipher } = this.ready();
    const token = connectToken(call);
    const tenant = await this.tenants.getInstalled(connectJwtIssuer(token));
    if (!tenant) throw signatureInvalid('confluence', 'no installed tenant for this iss');
    const secret = cipher.open(tenant);
    verifyConnectJwt(token, secret, this.request(call, base), this.clock.now());
    const body = readUntrustedJson('confluence', call.rawBody);
    const wiki = this.adapters.wiki(tenant.baseUrl);
    // The comment Confluence returns is untrusted text as well: made storable as it comes in.
    const comment = storable('confluence', await wiki.getComment(commentIdOf(body.payload)));
    const decision = mapConfluenceComment(tenant, comment, {
      accountId: this.config.confluence.botAccountId,
      handle: this.config.github.botHandle,
    });
    return this.intake.take(decision, body);
  }

  /** Verifies a lifecycle callback (RS256, aud, qsh) and its body, which must match the `iss`. */
  private async verifiedLifecycle(call: ConnectCall) {
    const { base, cipher } = this.ready();
    const claims = await verifyInstallJwt(connectToken(call), (kid) => this.keys.key(kid), {
      audience: base,
      request: this.request(call, base),
      now: this.clock.now(),
    });
    const parsed = lifecycleBody.safeParse(readUntrustedJson('confluence', call.rawBody).payload);
    if (!parsed.success) throw payloadMalformed('confluence', parsed.error.message);
    if (parsed.data.clientKey !== claims.iss) {
      throw signatureInvalid('confluence install', 'the body names another clientKey than iss');
    }
    if (parsed.data.key !== this.config.confluence.appKey) {
      throw payloadMalformed('confluence', `the callback is for app ${parsed.data.key}`);
    }
    return { body: parsed.data, cipher };
  }

  private ready(): { base: string; cipher: ConnectSecretCipher } {
    const base = this.config.confluence.baseUrl;
    if (!base || !this.cipher) {
      throw signatureInvalid(
        'confluence',
        `CONFLUENCE_BASE_URL or ${CONNECT_SECRET_KEYS} is unset`,
      );
    }
    return { base, cipher: this.cipher };
  }

  private request(call: ConnectCall, base: string) {
    return {
      method: call.method,
      path: call.path,
      query: call.query,
      contextPath: new URL(base).pathname,
    };
  }
}

/** The Connect JWT: `Authorization: JWT <token>`, else the `jwt` query parameter. */
function connectToken(call: ConnectCall): string {
  const header = /^JWT (\S+)$/.exec(headerValue(call.headers, 'authorization') ?? '')?.[1];
  const token = header ?? call.query.get('jwt');
  if (!token) throw signatureInvalid('confluence', 'no Connect JWT');
  return token;
}
