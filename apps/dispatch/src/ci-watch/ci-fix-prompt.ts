import { wrapUntrusted } from '@caravel/tools';

export interface CiFixRequest {
  pullRequestUrl: string;
  headSha: string;
  failing: readonly { name: string; url?: string }[];
  mergeConflict: boolean;
}

/**
 * The prompt of a fix run. Check names and links are written by whoever configured the CI, so
 * they reach the model as untrusted data, never as instructions. The rules bound what the agent
 * may do on a person's behalf: fix only failures with a deterministic cause, and never make CI
 * green by weakening it.
 */
export function ciFixPrompt(request: CiFixRequest): string {
  const checks = request.failing.map((c) => (c.url ? `- ${c.name}: ${c.url}` : `- ${c.name}`));
  const what = request.mergeConflict
    ? `The pull request ${request.pullRequestUrl} has a merge conflict with its base branch at ${request.headSha}.`
    : `Continuous integration failed on the pull request ${request.pullRequestUrl} at ${request.headSha}.`;
  const data = checks.length
    ? `\n\nThe failing checks, as the CI reported them:\n${wrapUntrusted(checks.join('\n'), { source: 'ci' })}`
    : '';
  return `${what}${data}

Rules:
- Fix only failures with a clear, deterministic cause: lint, types, imports, assertions, snapshots, the build, or the merge conflict.
- If the cause is flaky, a permission, a provider or anything outside the code, do not change code: say what you found in a comment and stop.
- Never weaken, skip or delete tests to make them pass, and never force-push.
- Push to the pull request's branch, then check CI again before you finish.`;
}
