import type { EnvSource } from '@caravel/config';
import { UsageError } from './cli-args.js';
import { dashboardFetch, refusal, type DashboardTarget } from './dashboard-client.js';

/** What the dashboard answers when the analysis was asked for. */
export interface AnalysisRequested {
  repository: string;
  threadId: string;
  requestId: string;
}

const REPOSITORY = /^([A-Za-z0-9_.-]{1,100})\/([A-Za-z0-9_.-]{1,100})$/;

/**
 * Asks the dashboard (admins, or its machine token) to publish a bootstrap of the repository's
 * review style; the analyzer runs it on the repository's thread.
 */
export async function requestAnalysis(
  target: DashboardTarget,
  owner: string,
  name: string,
): Promise<AnalysisRequested> {
  const path = `/api/review-styles/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/analyze`;
  const response = await dashboardFetch(target, path, { method: 'POST' });
  if (!response.ok) throw await refusal(response, target, `analysis of ${owner}/${name}`);
  return (await response.json()) as AnalysisRequested;
}

/** `caravel analyze OWNER/REPO [--url U] [--token T]`: asks, then says where it runs. */
export async function runAnalyze(
  positionals: readonly string[],
  values: Readonly<Record<string, string | undefined>>,
  env: EnvSource,
  io: { out(text: string): void },
): Promise<0> {
  const match = positionals.length === 1 ? REPOSITORY.exec(positionals[0] ?? '') : null;
  if (!match)
    throw new UsageError('analyze', 'give one repository as OWNER/REPO, e.g. acme/widgets');
  const token = values['token'] ?? env['DASHBOARD_TOKEN'] ?? env['CARAVEL_DASHBOARD_TOKEN'];
  const target = {
    url: values['url'] ?? `http://127.0.0.1:${env['PORT'] ?? '3000'}`,
    ...(token ? { token } : {}),
  };
  const asked = await requestAnalysis(target, match[1] ?? '', match[2] ?? '');
  io.out(
    `asked the analyzer to learn ${asked.repository}'s review style (thread ${asked.threadId}, request ${asked.requestId})\n`,
  );
  return 0;
}
