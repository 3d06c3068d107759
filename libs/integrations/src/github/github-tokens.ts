import { notConfigured } from '../http/service-errors.js';
import type { GitHubTokenProvider } from './github-client.js';

/**
 * A provider that always answers with one token (a personal or bot token from configuration);
 * without one, every call fails with a clean `PRECONDITION_FAILED` naming the setting.
 */
export function staticGitHubTokens(
  token: string | undefined,
  setting = 'GITHUB_TOKEN',
): GitHubTokenProvider {
  return () => (token ? Promise.resolve(token) : Promise.reject(notConfigured('GitHub', setting)));
}
