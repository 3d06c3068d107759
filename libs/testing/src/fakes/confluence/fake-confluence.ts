import { LoopbackApi, textOf, type FakeResponse, type RecordedCall } from '../http/loopback-api.js';

/** A comment the fake Confluence holds (storage-format body). */
export interface FakeConfluenceComment {
  id: string;
  pageId: string;
  /** The comment it replies to, if any. */
  parentId?: string;
  storage: string;
  author: { accountId: string; displayName: string };
  /** Content properties by key (`metadata.properties` on creation). */
  properties?: Record<string, unknown>;
}

/** A page the fake Confluence holds (storage-format body). */
export interface FakeConfluencePage {
  id: string;
  spaceKey: string;
  title: string;
  storage: string;
  version: number;
  parentId?: string;
}

type Json = Record<string, unknown>;

const notFound = (id: string): FakeResponse => ({
  status: 404,
  body: { statusCode: 404, message: `No content found with id: ${id}` },
});

const badRequest = (message: string): FakeResponse => ({
  status: 400,
  body: { statusCode: 400, message },
});

const object = (value: unknown): Json =>
  typeof value === 'object' && value !== null ? (value as Json) : {};

/**
 * A Confluence Cloud REST (v1) stand-in on 127.0.0.1 under the `/wiki` context path, behind
 * Basic auth with a service account's email and API token: content read by id (pages and
 * comments, with `container`, `ancestors`, `history`, `space`, `version` and `body.storage`),
 * pages and comments created (`POST /rest/api/content`, replies through `ancestors`, content
 * properties through `metadata.properties`), pages updated (the next version number only), a
 * page's comments listed (`/child/comment`, `expand=metadata.properties.<key>`), and a CQL
 * text search (`text ~ "…"`).
 */
export class FakeConfluence extends LoopbackApi {
  readonly comments: FakeConfluenceComment[] = [];
  readonly pages: FakeConfluencePage[] = [];
  private readonly accounts = new Map<string, string>();
  private seq = 70_000;

  constructor() {
    super();
    this.authorize((call) =>
      this.accountOf(call) ? null : { status: 401, body: { message: 'Unauthorized' } },
    );
    this.route('GET', '/wiki/rest/api/search', (call) => this.search(call));
    this.route('GET', '/wiki/rest/api/content/:id', (_call, p) => this.content(p['id'] ?? ''));
    this.route('GET', '/wiki/rest/api/content/:id/child/comment', (call, p) =>
      this.childComments(p['id'] ?? '', call),
    );
    this.route('POST', '/wiki/rest/api/content', (call) => this.create(call));
    this.route('PUT', '/wiki/rest/api/content/:id', (call, p) => this.update(p['id'] ?? '', call));
  }

  /** The site's Confluence root, as a tenant's `baseUrl` names it. */
  get wikiUrl(): string {
    return `${this.origin}/wiki`;
  }

  /** Accepts `email` + `apiToken` as a service account (its comments are by `acc-<email>`). */
  addAccount(email: string, apiToken: string): this {
    this.accounts.set(Buffer.from(`${email}:${apiToken}`).toString('base64'), email);
    return this;
  }

  /** Seeds a page; returns it. */
  addPage(page: Omit<FakeConfluencePage, 'id' | 'version'> & { id?: string }): FakeConfluencePage {
    const stored = { ...page, id: page.id ?? this.nextId(), version: 1 };
    this.pages.push(stored);
    return stored;
  }

  /** Seeds a comment on a page (a reply when `parentId` is given); returns it. */
  addComment(comment: Omit<FakeConfluenceComment, 'id'> & { id?: string }): FakeConfluenceComment {
    const stored = { ...comment, id: comment.id ?? this.nextId() };
    this.comments.push(stored);
    return stored;
  }

  /**
   * Seeds a page with one comment asking something on it: the start of a Confluence thread.
   * Returns both, and the `replyTo` ingress gives such a thread (`{ site, pageId, commentId }`).
   */
  addAsk(
    storage: string,
    author = { accountId: 'acc-ana', displayName: 'Ana' },
  ): {
    page: FakeConfluencePage;
    comment: FakeConfluenceComment;
    replyTo: { site: string; pageId: string; commentId: string };
  } {
    const page = this.addPage({ spaceKey: 'ENG', title: 'Runbook', storage: '<p>x</p>' });
    const comment = this.addComment({ pageId: page.id, storage, author });
    return {
      page,
      comment,
      replyTo: { site: this.wikiUrl, pageId: page.id, commentId: comment.id },
    };
  }

  /** The comments replying to `commentId`, oldest first. */
  repliesTo(commentId: string): FakeConfluenceComment[] {
    return this.comments.filter((c) => c.parentId === commentId);
  }

  private nextId(): string {
    this.seq += 1;
    return String(this.seq);
  }

  private accountOf(call: RecordedCall): string | undefined {
    const basic = /^Basic (\S+)$/.exec(textOf(call.headers.authorization))?.[1];
    return basic === undefined ? undefined : this.accounts.get(basic);
  }

  private ancestors(comment: FakeConfluenceComment): { id: string; type: string }[] {
    const chain: { id: string; type: string }[] = [];
    let parent = this.comments.find((c) => c.id === comment.parentId);
    while (parent) {
      chain.unshift({ id: parent.id, type: 'comment' });
      const above = parent.parentId;
      parent = this.comments.find((c) => c.id === above);
    }
    return [{ id: comment.pageId, type: 'page' }, ...chain];
  }

  private pageJson(page: FakeConfluencePage): Json {
    return {
      id: page.id,
      type: 'page',
      status: 'current',
      title: page.title,
      space: { key: page.spaceKey },
      version: { number: page.version },
      body: { storage: { value: page.storage, representation: 'storage' } },
      _links: { webui: `/spaces/${page.spaceKey}/pages/${page.id}`, base: this.wikiUrl },
    };
  }

  private commentJson(comment: FakeConfluenceComment, expand: string[] = []): Json {
    const page = this.pages.find((p) => p.id === comment.pageId);
    const properties = Object.fromEntries(
      Object.entries(comment.properties ?? {})
        .filter(([key]) => expand.includes(`metadata.properties.${key}`))
        .map(([key, value]) => [key, { key, value }]),
    );
    return {
      id: comment.id,
      type: 'comment',
      status: 'current',
      title: 'Re: page',
      container: { id: comment.pageId, type: 'page' },
      ancestors: this.ancestors(comment),
      history: { createdBy: { type: 'known', ...comment.author } },
      body: { storage: { value: comment.storage, representation: 'storage' } },
      ...(page ? { space: { key: page.spaceKey } } : {}),
      ...(Object.keys(properties).length > 0 ? { metadata: { properties } } : {}),
    };
  }

  private content(id: string): FakeResponse {
    const page = this.pages.find((p) => p.id === id);
    if (page) return { status: 200, body: this.pageJson(page) };
    const comment = this.comments.find((c) => c.id === id);
    return comment ? { status: 200, body: this.commentJson(comment) } : notFound(id);
  }

  private childComments(pageId: string, call: RecordedCall): FakeResponse {
    const expand = (call.query['expand'] ?? '').split(',');
    const all = call.query['depth'] === 'all';
    const limit = Number(call.query['limit'] ?? 25);
    const results = this.comments
      .filter((c) => c.pageId === pageId && (all || c.parentId === undefined))
      .slice(0, limit)
      .map((c) => this.commentJson(c, expand));
    return { status: 200, body: { results, start: 0, limit, size: results.length } };
  }

  private create(call: RecordedCall): FakeResponse {
    const body = object(call.body);
    const storage = textOf(object(object(body['body'])['storage'])['value']);
    const parent = textOf(object((body['ancestors'] as unknown[] | undefined)?.[0])['id']);
    if (body['type'] === 'page') {
      const spaceKey = textOf(object(body['space'])['key']);
      const title = textOf(body['title']);
      if (!spaceKey || !title) return badRequest('a page needs a space and a title');
      const page = this.addPage({
        spaceKey,
        title,
        storage,
        ...(parent ? { parentId: parent } : {}),
      });
      return { status: 200, body: this.pageJson(page) };
    }
    if (body['type'] !== 'comment') return badRequest(`unsupported type ${textOf(body['type'])}`);
    const pageId = textOf(object(body['container'])['id']);
    if (
      !this.pages.some((p) => p.id === pageId) &&
      !this.comments.some((c) => c.pageId === pageId)
    ) {
      return notFound(pageId);
    }
    if (parent && !this.comments.some((c) => c.id === parent && c.pageId === pageId)) {
      return notFound(parent);
    }
    const email = this.accountOf(call) ?? '';
    const properties = Object.fromEntries(
      Object.entries(object(object(body['metadata'])['properties'])).map(([key, property]) => [
        key,
        object(property)['value'],
      ]),
    );
    const comment = this.addComment({
      pageId,
      storage,
      author: { accountId: `acc-${email}`, displayName: email },
      ...(parent ? { parentId: parent } : {}),
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
    });
    return { status: 200, body: this.commentJson(comment) };
  }

  private update(id: string, call: RecordedCall): FakeResponse {
    const page = this.pages.find((p) => p.id === id);
    if (!page) return notFound(id);
    const body = object(call.body);
    const version = Number(object(body['version'])['number']);
    if (version !== page.version + 1) {
      return {
        status: 409,
        body: {
          statusCode: 409,
          message: `Version must be incremented: expected ${page.version + 1}`,
        },
      };
    }
    page.version = version;
    page.title = textOf(body['title']) || page.title;
    page.storage = textOf(object(object(body['body'])['storage'])['value']);
    return { status: 200, body: this.pageJson(page) };
  }

  private search(call: RecordedCall): FakeResponse {
    const term = /text\s*~\s*"((?:[^"\\]|\\.)*)"/.exec(call.query['cql'] ?? '')?.[1];
    if (term === undefined) return badRequest('fake Confluence: only text ~ "…" CQL is understood');
    const needle = term.replace(/\\(.)/g, '$1').toLowerCase();
    const limit = Number(call.query['limit'] ?? 25);
    const results = this.pages
      .filter((p) => `${p.title}\n${p.storage}`.toLowerCase().includes(needle))
      .slice(0, limit)
      .map((p) => ({
        content: { id: p.id, type: 'page', title: p.title },
        title: p.title,
        excerpt: p.storage.replace(/<[^>]+>/g, ' ').slice(0, 200),
        url: `/spaces/${p.spaceKey}/pages/${p.id}`,
      }));
    return { status: 200, body: { results, start: 0, limit, size: results.length } };
  }
}
