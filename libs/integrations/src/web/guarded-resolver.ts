import { AppError } from '@caravel/errors';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { classifyAddress, describeVerdict, type AddressVerdict } from './address-policy.js';
import type { HostAllowlist } from './host-allowlist.js';

/** Resolves a host name to every address it has (a literal IP resolves to itself). */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver (getaddrinfo, so `/etc/hosts` counts), every address in its order. */
export const systemResolver: HostResolver = (hostname) =>
  lookup(hostname, { all: true, verbatim: true });

/** What the connection of one hop is pinned to. */
export interface PinnedHost {
  hostname: string;
  addresses: LookupAddress[];
}

const ALLOWLIST_HINT =
  'The web tools reach public addresses only; an operator can allow internal hosts with WEB_ALLOWED_HOSTS.';

/**
 * Resolves a URL's host once and checks every address it resolves to: all must be public, or the
 * host must be allowlisted (cloud metadata addresses are refused even then). The answer is what
 * the connection is pinned to, so a second lookup (DNS rebinding) can never switch it.
 */
export async function resolvePublicHost(
  url: URL,
  allowlist: HostAllowlist,
  resolve: HostResolver,
): Promise<PinnedHost> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(hostname);
  let addresses: LookupAddress[];
  try {
    addresses = literal ? [{ address: hostname, family: literal }] : await resolve(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'no answer';
    throw new AppError('NOT_FOUND', `Could not resolve ${url.hostname} (${code}).`, {
      details: { host: url.hostname },
    });
  }
  if (addresses.length === 0) {
    throw new AppError('NOT_FOUND', `${url.hostname} has no address.`, {
      details: { host: url.hostname },
    });
  }
  const allowed = allowlist.allows(url.hostname);
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    if (verdict.kind === 'public') continue;
    if (allowed && verdict.kind !== 'metadata' && verdict.kind !== 'invalid') continue;
    throw refused(url, verdict);
  }
  return { hostname, addresses };
}

function refused(url: URL, verdict: AddressVerdict): AppError {
  const what = url.hostname === verdict.address ? '' : ` (${url.hostname} resolves to it)`;
  return new AppError(
    'FORBIDDEN',
    `Refused ${url.origin}: ${describeVerdict(verdict)}${what}. ${ALLOWLIST_HINT}`,
    { details: { host: url.hostname, address: verdict.address, kind: verdict.kind } },
  );
}
