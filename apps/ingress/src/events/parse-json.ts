import { payloadMalformed } from '../ingress.errors.js';

/** Parses a verified raw body; a body that is not JSON is the sender's fault (400). */
export function parseJsonBody(source: string, rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8')) as unknown;
  } catch {
    throw payloadMalformed(source, 'body is not JSON');
  }
}
