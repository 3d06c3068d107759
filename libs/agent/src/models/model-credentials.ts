import { AppError } from '@caravel/errors';
import type { ModelProvider } from './model-catalogue.js';

/** Credentials and endpoints for the providers, passed in by the host (which reads its env). */
export interface ModelCredentials {
  readonly anthropicApiKey?: string;
  readonly openaiApiKey?: string;
  /** Base URL of an OpenAI-compatible server (Ollama, vLLM), e.g. `http://127.0.0.1:11434/v1`. */
  readonly openaiCompatibleBaseUrl?: string;
  /** Optional: most self-hosted servers accept any key. */
  readonly openaiCompatibleApiKey?: string;
}

/**
 * The variable an operator sets for each provider's required credential. The library reads none
 * of them; they are named in errors so the operator knows what to set.
 */
export const PROVIDER_CREDENTIAL_ENV = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_BASE_URL',
} as const;

function missing(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

function missingCredentialError(provider: keyof typeof PROVIDER_CREDENTIAL_ENV): AppError {
  const envVar = PROVIDER_CREDENTIAL_ENV[provider];
  const what = provider === 'openai-compatible' ? 'a base URL' : 'an API key';
  return new AppError(
    'CONFIG_INVALID',
    `the ${provider} model provider is configured but has no credentials: it needs ${what} (set ${envVar})`,
    { details: { provider, envVar } },
  );
}

/**
 * Throws CONFIG_INVALID when `provider` lacks what it needs to make a call. Hosts call it at start
 * for every provider their configuration names, so a missing key fails the start, not a run.
 */
export function assertProviderCredentials(
  provider: ModelProvider,
  credentials: ModelCredentials,
): void {
  switch (provider) {
    case 'anthropic':
      if (missing(credentials.anthropicApiKey)) throw missingCredentialError(provider);
      return;
    case 'openai':
      if (missing(credentials.openaiApiKey)) throw missingCredentialError(provider);
      return;
    case 'openai-compatible':
      if (missing(credentials.openaiCompatibleBaseUrl)) throw missingCredentialError(provider);
      return;
    case 'scripted':
    case 'replay':
      return;
  }
}
