import { AppError } from '@caravel/errors';

/**
 * The operator's list of internal hosts the web tools may reach (`WEB_ALLOWED_HOSTS`): exact
 * host names or IP literals, or `*.suffix` for every subdomain of a domain. Entries are
 * normalised by the WHATWG URL parser, like the URLs they are compared with, so `0x7f.1` and
 * `127.0.0.1` are one entry and `[0:0::1]` is `[::1]`. Empty by default: nothing internal.
 */
export class HostAllowlist {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];

  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim();
      if (entry === '') continue;
      if (entry.startsWith('*.')) this.suffixes.push(`.${normaliseHost(entry.slice(2), raw)}`);
      else this.exact.add(normaliseHost(entry, raw));
    }
  }

  /** Parses the setting's comma-separated form. */
  static parse(setting: string | undefined): HostAllowlist {
    return new HostAllowlist((setting ?? '').split(','));
  }

  /** True when the URL host (as `new URL(...).hostname` gives it) is allowlisted. */
  allows(hostname: string): boolean {
    const host = hostname.toLowerCase();
    return this.exact.has(host) || this.suffixes.some((suffix) => host.endsWith(suffix));
  }

  get size(): number {
    return this.exact.size + this.suffixes.length;
  }
}

function normaliseHost(host: string, entry: string): string {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    const url = new URL(`http://${bracketed}/`);
    if (url.port !== '' || url.username !== '' || url.pathname !== '/')
      throw new Error('not a host');
    return url.hostname;
  } catch {
    throw new AppError('CONFIG_INVALID', `WEB_ALLOWED_HOSTS: "${entry}" is not a host name`);
  }
}
