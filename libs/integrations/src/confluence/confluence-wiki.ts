import type { WikiPage, WikiPort, WikiSearchHit } from '@caravel/tools';
import { markdownToStorage, storageToMarkdown } from '../markup/storage-format.js';
import { AtlassianRest, unexpectedAnswer } from '../atlassian/atlassian-rest.js';
import {
  cqlString,
  idempotencyKeyOf,
  idempotencyMetadata,
  IDEMPOTENCY_EXPAND,
  storageBody,
  toSearchHits,
  toWikiPage,
  type ContentJson,
  type SearchJson,
} from './confluence-content.js';

/** A Confluence comment as the service account reads it back (never as a webhook claims it). */
export interface WikiComment {
  id: string;
  /** The page (or blog post) the comment is on. */
  pageId: string;
  /** The key of the page's space, when Confluence names it. */
  spaceKey?: string;
  /** The comment this one answers, when it is a reply. */
  parentCommentId?: string;
  /** The top comment of the conversation: the comment itself when it is not a reply. */
  rootCommentId: string;
  author: { accountId: string; displayName?: string };
  markdown: string;
  /** Account ids the comment mentions (`<ri:user ri:account-id=…>`). */
  mentions: string[];
}

/** Where a Confluence site is and the service account that reads it. */
export interface ConfluenceWikiOptions {
  /** The site's Confluence root, e.g. `https://acme.atlassian.net/wiki`. */
  baseUrl: string | undefined;
  email: string | undefined;
  apiToken: string | undefined;
  /** The settings to name when credentials are missing. */
  settings?: string;
}

const MENTION = /<ri:user\b[^>]*\bri:account-id="([^"]+)"/g;
const enc = encodeURIComponent;

/**
 * Confluence Cloud over REST (`/rest/api/content`) as Caravel's service account: the agent's
 * wiki port (pages, comments, search; storage format ↔ markdown) and the reply channel's
 * `replyOnce`. Comments are read back by id, so what a webhook body claims about a comment's
 * author or text never counts.
 */
export class ConfluenceWiki implements WikiPort {
  private readonly rest: AtlassianRest;
  private readonly baseUrl: string;

  constructor(options: ConfluenceWikiOptions) {
    this.baseUrl = options.baseUrl ?? '';
    this.rest = new AtlassianRest({
      service: 'Confluence',
      // Relative API paths resolve under the site's context path (`/wiki/`).
      baseUrl: options.baseUrl?.replace(/\/*$/, '/'),
      email: options.email,
      apiToken: options.apiToken,
      settings: options.settings ?? 'CONFLUENCE_EMAIL and CONFLUENCE_API_TOKEN',
    });
  }

  /** Reads a comment: its page, its conversation, its real author and its text as markdown. */
  async getComment(id: string): Promise<WikiComment> {
    const json = await this.rest.send<ContentJson>(
      `read comment ${id}`,
      'GET',
      `rest/api/content/${enc(id)}?expand=body.storage,history,container,ancestors,space`,
    );
    const pageId = json.container?.id;
    const author = json.history?.createdBy;
    if (json.type !== 'comment' || !json.id || !pageId || !author?.accountId) {
      throw unexpectedAnswer('Confluence', `read comment ${id}`);
    }
    const thread = (json.ancestors ?? []).filter((a) => a.type === 'comment' && a.id);
    const storage = json.body?.storage?.value ?? '';
    const parent = thread.at(-1)?.id;
    return {
      id: json.id,
      pageId,
      ...(json.space?.key ? { spaceKey: json.space.key } : {}),
      ...(parent ? { parentCommentId: parent } : {}),
      rootCommentId: thread[0]?.id ?? json.id,
      author: {
        accountId: author.accountId,
        ...(author.displayName ? { displayName: author.displayName } : {}),
      },
      markdown: storageToMarkdown(storage),
      mentions: [...new Set([...storage.matchAll(MENTION)].map((m) => m[1] ?? ''))],
    };
  }

  async getPage(id: string): Promise<WikiPage> {
    const action = `read page ${id}`;
    const json = await this.rest.send<ContentJson>(
      action,
      'GET',
      `rest/api/content/${enc(id)}?expand=body.storage,version`,
    );
    return toWikiPage(json, this.baseUrl, action);
  }

  async createPage(page: {
    space: string;
    title: string;
    markdown: string;
    parentId?: string;
  }): Promise<WikiPage> {
    const action = `create page "${page.title}" in ${page.space}`;
    const json = await this.rest.send<ContentJson>(action, 'POST', 'rest/api/content', {
      type: 'page',
      title: page.title,
      space: { key: page.space },
      ...(page.parentId ? { ancestors: [{ id: page.parentId }] } : {}),
      body: storageBody(markdownToStorage(page.markdown)),
    });
    return toWikiPage(json, this.baseUrl, action);
  }

  /** Replaces a page's body (and title), as the version after the one read just before. */
  async updatePage(id: string, changes: { title?: string; markdown: string }): Promise<WikiPage> {
    const current = await this.getPage(id);
    const action = `update page ${id}`;
    const json = await this.rest.send<ContentJson>(action, 'PUT', `rest/api/content/${enc(id)}`, {
      id,
      type: 'page',
      title: changes.title ?? current.title,
      version: { number: current.version + 1 },
      body: storageBody(markdownToStorage(changes.markdown)),
    });
    return toWikiPage(json, this.baseUrl, action);
  }

  /** A top-level comment on a page. */
  comment(pageId: string, markdown: string): Promise<{ id: string }> {
    return this.postComment(pageId, undefined, markdown);
  }

  /**
   * Replies under `parentCommentId` (or on the page) once per `idempotencyKey`: the key rides
   * in a content property of the comment, and the page's comments are searched for it first.
   */
  async replyOnce(
    pageId: string,
    parentCommentId: string | undefined,
    markdown: string,
    idempotencyKey: string,
  ): Promise<{ id: string }> {
    const listed = await this.rest.send<{ results?: ContentJson[] }>(
      `read the comments of page ${pageId}`,
      'GET',
      `rest/api/content/${enc(pageId)}/child/comment?depth=all&limit=200&expand=${IDEMPOTENCY_EXPAND}`,
    );
    const earlier = (listed.results ?? []).find((c) => idempotencyKeyOf(c) === idempotencyKey);
    if (earlier?.id) return { id: earlier.id };
    return this.postComment(pageId, parentCommentId, markdown, idempotencyKey);
  }

  async search(query: string, limit: number): Promise<WikiSearchHit[]> {
    const cql = `type = page AND text ~ ${cqlString(query)}`;
    const json = await this.rest.send<SearchJson>(
      `search for ${JSON.stringify(query)}`,
      'GET',
      `rest/api/search?cql=${enc(cql)}&limit=${limit}`,
    );
    return toSearchHits(json, this.baseUrl);
  }

  private async postComment(
    pageId: string,
    parentCommentId: string | undefined,
    markdown: string,
    idempotencyKey?: string,
  ): Promise<{ id: string }> {
    const action = `comment on page ${pageId}`;
    const json = await this.rest.send<ContentJson>(action, 'POST', 'rest/api/content', {
      type: 'comment',
      container: { id: pageId, type: 'page' },
      ...(parentCommentId ? { ancestors: [{ id: parentCommentId }] } : {}),
      body: storageBody(markdownToStorage(markdown)),
      ...(idempotencyKey ? { metadata: idempotencyMetadata(idempotencyKey) } : {}),
    });
    if (!json.id) throw unexpectedAnswer('Confluence', action);
    return { id: json.id };
  }
}
