import { LoopbackApi, textOf, type FakeResponse, type RecordedCall } from '../http/loopback-api.js';

/** A comment the fake Confluence holds (storage-format body). */
export interface FakeConfluenceComment {
  id: string;
  pageId: string;
  /** The comment it replies to, if any. */
  parentId?: string;
  storage: string;
  author: { accountId: string; displayName: string };
}

/**
 * A Confluence Cloud REST stand-in on 127.0.0.1 under the `/wiki` context path: comments read by
 * id (`GET /wiki/rest/api/content/:id`, with `container`, `ancestors`, `history` and
 * `body.storage`), behind Basic auth with a service account's email and API token.
 */
export class FakeConfluence extends LoopbackApi {
  readonly comments: FakeConfluenceComment[] = [];
  private readonly accounts = new Set<string>();
  private seq = 70_000;

  constructor() {
    super();
    this.authorize((call) =>
      this.authorized(call) ? null : { status: 401, body: { message: 'Unauthorized' } },
    );
    this.route('GET', '/wiki/rest/api/content/:id', (_call, p) => this.content(p['id'] ?? ''));
  }

  /** The site's Confluence root, as a tenant's `baseUrl` names it. */
  get wikiUrl(): string {
    return `${this.origin}/wiki`;
  }

  /** Accepts `email` + `apiToken` as a service account. */
  addAccount(email: string, apiToken: string): this {
    this.accounts.add(Buffer.from(`${email}:${apiToken}`).toString('base64'));
    return this;
  }

  /** Seeds a comment on a page (a reply when `parentId` is given); returns it. */
  addComment(comment: Omit<FakeConfluenceComment, 'id'> & { id?: string }): FakeConfluenceComment {
    this.seq += 1;
    const stored = { ...comment, id: comment.id ?? String(this.seq) };
    this.comments.push(stored);
    return stored;
  }

  private authorized(call: RecordedCall): boolean {
    const basic = /^Basic (\S+)$/.exec(textOf(call.headers.authorization))?.[1];
    return basic !== undefined && this.accounts.has(basic);
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

  private content(id: string): FakeResponse {
    const comment = this.comments.find((c) => c.id === id);
    if (!comment) {
      return { status: 404, body: { statusCode: 404, message: `No content found with id: ${id}` } };
    }
    return {
      status: 200,
      body: {
        id: comment.id,
        type: 'comment',
        status: 'current',
        title: 'Re: page',
        container: { id: comment.pageId, type: 'page' },
        ancestors: this.ancestors(comment),
        history: { createdBy: { type: 'known', ...comment.author } },
        body: { storage: { value: comment.storage, representation: 'storage' } },
      },
    };
  }
}
