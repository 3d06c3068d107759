import { generateKeyPairSync, type KeyObject } from 'node:crypto';

/** A GitHub App's key pair: the fake verifies the App's JWTs with the public half. */
export function githubAppKeys(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

/**
 * The configuration that makes Caravel act as GitHub App `id` (signing with `privateKey`, PEM
 * newlines escaped as an env file holds them) against the fake GitHub at `origin`.
 */
export function githubAppEnv(
  id: string,
  privateKey: KeyObject,
  origin: string,
): Record<'GITHUB_APP_ID' | 'GITHUB_APP_PRIVATE_KEY' | 'GITHUB_API_URL' | 'GITHUB_HOST', string> {
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return {
    GITHUB_APP_ID: id,
    GITHUB_APP_PRIVATE_KEY: pem.replace(/\n/g, '\\n'),
    GITHUB_API_URL: origin,
    GITHUB_HOST: origin,
  };
}
