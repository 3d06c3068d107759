import { storageToMarkdown } from '../markup/storage-format.js';
import { AtlassianRest, unexpectedAnswer } from '../atlassian/atlassian-rest.js';

/** A Confluence comment as the service account reads it back (never as a webhook claims it). */
export interface WikiComment {
  id: string;
  /** The page (or blog post) the comment is on. */
  pageId: string;
  /** The comment this one answers, when it is a reply. */
  parentCommentId?: string;
  /** The top comment of the conversation: the comment itself when it is not a reply. */
  rootCommentId: string;
  author: { accountId: string; displayName?: string };
  markdown: string;
  /** Account ids the comment mentions (`<ri:user ri:account-id=…>`). */
  mentions: string[];
}

interface CommentJson {
  id?: string;
  type?: string;
  container?: { id?: string };
  ancestors?: { id?: string; type?: string }[];
  history?: { createdBy?: { accountId?: string; displayName?: string } };
  body?: { storage?: { value?: string } };
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

/**
 * Confluence Cloud over REST (`/rest/api/content`) as Caravel's service account. Comments are
 * read back by id, so what a webhook body claims about a comment's author or text never counts.
 */
export class ConfluenceWiki {
  private readonly rest: AtlassianRest;

  constructor(options: ConfluenceWikiOptions) {
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
    const json = await this.rest.send<CommentJson>(
      `read comment ${id}`,
      'GET',
      `rest/api/content/${encodeURIComponent(id)}?expand=body.storage,history,container,ancestors`,
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
}
