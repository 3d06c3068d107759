import { createHash, randomBytes } from 'node:crypto';

import { canonicalJson } from './canonical-json.js';
import type { Anchor, Finding } from './finding.model.js';

/** The fingerprint scheme's version, part of what is hashed and of the `v1:` prefix. */
export const FINGERPRINT_VERSION = 1;

/** What identifies a finding: where it is and what it says. */
export interface FindingIdentity extends Anchor {
  description: string;
}

/**
 * A description as the fingerprint sees it: Unicode NFC, every run of whitespace one space,
 * trimmed, lower-cased (`toLowerCase`, locale-independent). Rewrapping or recasing a sentence
 * does not make a new finding; changing a word does.
 */
export function normalizeDescription(description: string): string {
  return description.normalize('NFC').replace(/\s+/gu, ' ').trim().toLowerCase();
}

/** The object whose canonical JSON is hashed; keys are snake_case and sort as written here. */
export function fingerprintPayload(identity: FindingIdentity): {
  description: string;
  end_line: number | null;
  file: string;
  side: string;
  start_line: number | null;
  version: number;
} {
  return {
    description: normalizeDescription(identity.description),
    end_line: identity.endLine,
    file: identity.file,
    side: identity.side,
    start_line: identity.startLine,
    version: FINGERPRINT_VERSION,
  };
}

/**
 * `v1:` + hex SHA-256 of the UTF-8 canonical JSON of {@link fingerprintPayload}. Two findings
 * with the same fingerprint say the same thing about the same lines.
 */
export function fingerprintOf(identity: FindingIdentity): string {
  const digest = createHash('sha256')
    .update(canonicalJson(fingerprintPayload(identity)), 'utf8')
    .digest('hex');
  return `v${FINGERPRINT_VERSION}:${digest}`;
}

/**
 * The fingerprints a new finding is compared with: the one it was filed with, and the one it has
 * where its anchor stands now (the code moved since), so a repeat at the moved lines is a duplicate.
 */
export function matchingFingerprints(
  finding: Pick<Finding, 'fingerprint' | 'anchor' | 'description'>,
): string[] {
  const current = fingerprintOf({ ...finding.anchor, description: finding.description });
  return current === finding.fingerprint ? [current] : [finding.fingerprint, current];
}

/** A new finding id: `f_` + 10 hex digits (40 random bits). */
export function newFindingId(random: (bytes: number) => Uint8Array = randomBytes): string {
  return `f_${Buffer.from(random(5)).toString('hex')}`;
}
