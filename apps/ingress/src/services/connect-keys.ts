import { createPublicKey, type KeyObject } from 'node:crypto';
import { AppError } from '@caravel/errors';

/**
 * Atlassian's public keys for signed install callbacks, fetched from `<keysUrl>/<kid>` (a PEM)
 * and cached per kid. Only successes are cached: a failed fetch is retried by the next install.
 * Keys come from the configured URL alone, never from the request, so nothing is trusted on
 * first use.
 */
export class ConnectKeys {
  private readonly cache = new Map<string, Promise<KeyObject>>();

  constructor(
    private readonly keysUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** The public key named `kid`. */
  key(kid: string): Promise<KeyObject> {
    const cached = this.cache.get(kid);
    if (cached) return cached;
    const pending = this.load(kid);
    this.cache.set(kid, pending);
    pending.catch(() => this.cache.delete(kid));
    return pending;
  }

  private async load(kid: string): Promise<KeyObject> {
    const url = `${this.keysUrl.replace(/\/+$/, '')}/${encodeURIComponent(kid)}`;
    const response = await this.fetchImpl(url, { redirect: 'error' });
    if (!response.ok) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', `Connect key ${kid}: HTTP ${response.status}`);
    }
    const key = createPublicKey(await response.text());
    if (key.asymmetricKeyType !== 'rsa') {
      throw new AppError('DEPENDENCY_UNAVAILABLE', `Connect key ${kid} is not an RSA key`);
    }
    return key;
  }
}
