import type { RepositoryRef, TriggerSource } from '@caravel/contracts';

/** `owner/name` as GitHub spells repositories (letters, digits, `-`, `_`, `.`). */
const SLUG = /^([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9_.-]+)$/;

/** `repo:owner/name` (or `repo: owner/name`) as a whole token of a message. */
const NAMED = /(?:^|[\s([{<*_`"'])repo:\s?([A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+)/i;

/** `owner/name` → a repository reference; undefined when it is not one. */
export function parseRepositorySlug(slug: string): RepositoryRef | undefined {
  // A sentence may end right after the name: `repo:acme/widgets.`
  const match = SLUG.exec(slug.replace(/\.+$/, ''));
  return match?.[1] && match[2] ? { owner: match[1], name: match[2] } : undefined;
}

/** The repository a message names with `repo:owner/name`, if it names one. */
export function repositoryNamedIn(text: string): RepositoryRef | undefined {
  const slug = NAMED.exec(text)?.[1];
  return slug ? parseRepositorySlug(slug) : undefined;
}

/** One `REPOSITORY_ROUTES` entry: where a channel, team, project or space works by default. */
export interface RepositoryRoute {
  source: TriggerSource;
  /** Slack channel id, Linear team key, Jira project key or Confluence space key. */
  container: string;
  repository: RepositoryRef;
}

const ROUTE = /^(slack|linear|jira|confluence):([^=\s]+)=(\S+)$/;

/** Parses one `<source>:<container>=owner/name` entry; undefined when malformed. */
export function parseRepositoryRoute(entry: string): RepositoryRoute | undefined {
  const match = ROUTE.exec(entry);
  const repository = match?.[3] ? parseRepositorySlug(match[3]) : undefined;
  if (!match?.[1] || !match[2] || !repository) return undefined;
  return { source: match[1] as TriggerSource, container: match[2], repository };
}

const key = (source: string, container: string) => `${source}:${container.toLowerCase()}`;

/**
 * Where a chat or tracker trigger works when its message names no repository: the route of its
 * Slack channel, Linear team, Jira project or Confluence space (`REPOSITORY_ROUTES`), else the
 * team default (`DEFAULT_REPOSITORY`), else nowhere (the agent has no checkout to work in).
 */
export class RepositoryRoutes {
  private readonly routes: ReadonlyMap<string, RepositoryRef>;

  constructor(
    routes: readonly RepositoryRoute[],
    private readonly fallback: RepositoryRef | undefined,
  ) {
    this.routes = new Map(routes.map((r) => [key(r.source, r.container), r.repository]));
  }

  /** False when nothing is configured, so there is nothing to look up. */
  get configured(): boolean {
    return this.routes.size > 0 || this.fallback !== undefined;
  }

  /** The default repository of a trigger from `source` in `container` (when known). */
  defaultFor(source: TriggerSource, container: string | undefined): RepositoryRef | undefined {
    const routed = container === undefined ? undefined : this.routes.get(key(source, container));
    return routed ?? this.fallback;
  }
}

/** What {@link RepositoryRoutes.resolve} reads of a trigger. */
export interface RoutedTrigger {
  source: TriggerSource;
  text: string;
  container?: string | undefined;
  repository?: RepositoryRef | undefined;
}

/**
 * The repository a trigger works on: its own (GitHub, the Jira rule's), else the one its message
 * names, else, for a thread that has none yet, its route or the default. A thread keeps the
 * repository it has: a default never moves it (`threadHasRepository` is asked only then).
 */
export async function resolveRepository(
  trigger: RoutedTrigger,
  routes: RepositoryRoutes,
  threadHasRepository: () => Promise<boolean>,
): Promise<RepositoryRef | undefined> {
  if (trigger.repository) return trigger.repository;
  const named = repositoryNamedIn(trigger.text);
  if (named) return named;
  if (!routes.configured || (await threadHasRepository())) return undefined;
  return routes.defaultFor(trigger.source, trigger.container);
}
