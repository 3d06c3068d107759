import type { FakeResponse, LoopbackApi, RecordedCall } from '../http/loopback-api.js';

/**
 * A merged (or closed) pull request of a source repository, in GitHub's own JSON shape, with its
 * file list, as a farm reads it. `pull` must carry `number` and `created_at`.
 */
export interface FakeSourcePull {
  readonly pull: Record<string, unknown> & { number: number; created_at: string };
  readonly files: readonly { filename: string; status: string; previous_filename?: string }[];
}

/** An issue of a repository as `GET /repos/{o}/{r}/issues/{n}` answers it. */
export interface FakeSourceIssue {
  readonly number: number;
  readonly title: string;
  readonly body: string;
}

/** Source repositories' pull requests and issues, keyed by `owner/name` (lower case). */
export class SourcePulls {
  readonly pulls = new Map<string, FakeSourcePull[]>();
  readonly issues = new Map<string, FakeSourceIssue[]>();
  /** `permissions` reported by `GET /repos/{o}/{r}`, when a test set them. */
  readonly permissions = new Map<string, Record<string, boolean>>();
  /** PR numbers whose detail call (`GET .../pulls/{n}`) waits for the promise before answering. */
  readonly holds = new Map<number, Promise<void>>();

  has(key: string): boolean {
    return this.pulls.has(key);
  }

  find(key: string, number: number): FakeSourcePull | undefined {
    return this.pulls.get(key)?.find((p) => p.pull.number === number);
  }
}

const notFound: FakeResponse = { status: 404, body: { message: 'Not Found' } };

function page<T>(call: RecordedCall, all: readonly T[]): { items: T[]; link?: string } {
  const perPage = Math.min(100, Number(call.query['per_page'] ?? 30));
  const current = Number(call.query['page'] ?? 1);
  const items = all.slice((current - 1) * perPage, current * perPage);
  if (current * perPage >= all.length) return { items };
  const next = new URLSearchParams({ ...call.query, page: String(current + 1) });
  return { items, link: `<${call.path}?${next.toString()}>; rel="next"` };
}

/**
 * `GET /repos/{o}/{r}/pulls` for a source repository: `state` (closed = merged or closed),
 * `sort=created` with `direction`, `per_page` (max 100) and `page`, with a `Link` header.
 */
export function listSourcePulls(
  call: RecordedCall,
  origin: string,
  pulls: readonly FakeSourcePull[],
): FakeResponse {
  const wanted = call.query['state'] ?? 'open';
  const states = pulls.filter((p) => {
    const state = typeof p.pull['state'] === 'string' ? p.pull['state'] : 'closed';
    return wanted === 'all' || state === wanted;
  });
  const ascending = call.query['direction'] === 'asc';
  const sorted = [...states].sort((a, b) =>
    ascending
      ? a.pull.created_at.localeCompare(b.pull.created_at)
      : b.pull.created_at.localeCompare(a.pull.created_at),
  );
  const { items, link } = page(call, sorted);
  return {
    status: 200,
    body: items.map((p) => p.pull),
    ...(link ? { headers: { link: link.replace('<', `<${origin}`) } } : {}),
  };
}

/** A source PR with `changed_files`, as `GET /repos/{o}/{r}/pulls/{n}` answers it. */
export async function sourcePullDetail(
  pull: FakeSourcePull,
  hold?: Promise<void>,
): Promise<FakeResponse> {
  await hold;
  return { status: 200, body: { changed_files: pull.files.length, ...pull.pull } };
}

/** Registers the files, issue and timeline endpoints of source repositories on `api`. */
export function registerSourceRoutes(
  api: LoopbackApi,
  source: SourcePulls,
  origin: () => string,
): void {
  const key = (p: Record<string, string>): string => `${p['owner']}/${p['repo']}`.toLowerCase();
  api.route('GET', '/repos/:owner/:repo/pulls/:number/files', (call, p) => {
    const pull = source.find(key(p), Number(p['number']));
    if (!pull) return notFound;
    const { items, link } = page(call, pull.files);
    return {
      status: 200,
      body: items,
      ...(link ? { headers: { link: link.replace('<', `<${origin()}`) } } : {}),
    };
  });
  api.route('GET', '/repos/:owner/:repo/issues/:number', (_call, p) => {
    const number = Number(p['number']);
    const issue = source.issues.get(key(p))?.find((i) => i.number === number);
    if (issue) return { status: 200, body: { ...issue } };
    const pull = source.find(key(p), number);
    return pull ? { status: 200, body: { number, title: '', pull_request: {} } } : notFound;
  });
  api.route('GET', '/repos/:owner/:repo/issues/:number/timeline', (_call, p) =>
    source.find(key(p), Number(p['number'])) ? { status: 200, body: [] } : notFound,
  );
}
