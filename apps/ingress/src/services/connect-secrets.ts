import { AppError, isAppError } from '@caravel/errors';
import { parseKeyring, TokenCipher, type SealedToken } from '@caravel/integrations';
import type { IngressConfig } from '../ingress.config.js';

/** The setting holding the Connect keyring: the ingress's own, never `CARAVEL_TOKEN_KEYS`. */
export const CONNECT_SECRET_KEYS = 'CONNECT_SECRET_KEYS';

/** What re-seals secrets sealed under the token keyring before the ingress had its own. */
export const CONNECT_RESEAL_COMMAND = 'caravel connect reseal';

/** A tenant's shared secret is sealed under this context, so it opens for that row only. */
export const connectSecretContext = (clientKey: string): string =>
  `connect|${clientKey}|shared-secret`;

/** A tenant row as far as its sealed secret goes. */
export interface SealedTenantSecret {
  clientKey: string;
  sealedSecret: string;
  keyId: string;
}

/**
 * A tenant's secret that the Connect keyring cannot open: most likely sealed under
 * `CARAVEL_TOKEN_KEYS` before the upgrade that gave the ingress its own keyring. A 500 (logged):
 * the operator's to fix, and Atlassian retries the delivery once it is.
 */
export function connectSecretUnopened(tenant: SealedTenantSecret): AppError {
  return new AppError(
    'CONFIG_INVALID',
    `Connect tenant ${tenant.clientKey}: its shared secret (key ${tenant.keyId}) does not open under ${CONNECT_SECRET_KEYS}. ` +
      `Sealed before the upgrade under CARAVEL_TOKEN_KEYS? Run \`${CONNECT_RESEAL_COMMAND}\` once with both keyrings set`,
    { details: { clientKey: tenant.clientKey, keyId: tenant.keyId } },
  );
}

/**
 * Seals and opens Connect tenants' shared secrets under `CONNECT_SECRET_KEYS` (AES-256-GCM,
 * bound to the tenant's client key). A keyring of its own, so that the internet-facing ingress
 * holds no key that opens people's stored tokens.
 */
export class ConnectSecretCipher {
  private readonly cipher: TokenCipher;

  /** @throws AppError CONFIG_INVALID naming `CONNECT_SECRET_KEYS` for a malformed keyring. */
  constructor(ring: string) {
    this.cipher = new TokenCipher(parseKeyring(ring, CONNECT_SECRET_KEYS));
  }

  /** The id of the key secrets are sealed under now. */
  get currentKeyId(): string {
    return this.cipher.currentKeyId;
  }

  seal(clientKey: string, secret: string): SealedToken {
    return this.cipher.encrypt(secret, connectSecretContext(clientKey));
  }

  /**
   * The tenant's shared secret.
   * @throws AppError CONFIG_INVALID ({@link connectSecretUnopened}) when no key of the ring opens
   *   it: sealed under a key the ring lacks, or under another key with the same id.
   */
  open(tenant: SealedTenantSecret): string {
    try {
      return this.cipher.decrypt(tenant.sealedSecret, connectSecretContext(tenant.clientKey));
    } catch (error) {
      if (isAppError(error)) throw connectSecretUnopened(tenant);
      throw error;
    }
  }
}

/**
 * What to warn about at start when the Connect app is on (`CONFLUENCE_BASE_URL`) without its
 * keyring: every install and webhook would be refused. An install upgraded from the days the
 * token keyring sealed these secrets needs the new key and one re-seal.
 */
export function connectSetupWarning(
  config: Pick<IngressConfig, 'confluence' | 'connectSecretKeys'>,
): string | undefined {
  if (!config.confluence.baseUrl || config.connectSecretKeys) return undefined;
  return (
    `CONFLUENCE_BASE_URL is set but ${CONNECT_SECRET_KEYS} is not: every /connect install and webhook answers 401 until it is ` +
    `(upgrading from the days CARAVEL_TOKEN_KEYS sealed them: set it, then run \`${CONNECT_RESEAL_COMMAND}\` once)`
  );
}
