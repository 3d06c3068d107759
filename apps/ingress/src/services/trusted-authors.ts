import type { TriggerSource } from '@caravel/contracts';

/** The `TRUSTED_AUTHORS` allowlist: `<source>:<id>` entries, GitHub logins case-insensitive. */
export class TrustedAuthors {
  private readonly entries: ReadonlySet<string>;

  constructor(entries: readonly string[]) {
    this.entries = new Set(entries.map((entry) => TrustedAuthors.key(entry)));
  }

  has(source: TriggerSource, externalId: string): boolean {
    return this.entries.has(TrustedAuthors.key(`${source}:${externalId}`));
  }

  private static key(entry: string): string {
    return entry.startsWith('github:') ? entry.toLowerCase() : entry;
  }
}
