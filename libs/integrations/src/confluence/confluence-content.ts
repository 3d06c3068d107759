import type { WikiPage, WikiSearchHit } from '@caravel/tools';
import { storageToMarkdown } from '../markup/storage-format.js';
import { unexpectedAnswer } from '../atlassian/atlassian-rest.js';

/**
 * Confluence REST v1 content as Caravel reads it: the JSON shapes of pages, comments and search
 * results, and their mapping to the tool ports' types.
 */

/** The content property that carries a reply's idempotency key (storage format has no hidden comments that survive an edit). */
export const CONFLUENCE_IDEMPOTENCY_PROPERTY = 'caravel-idempotency';

/** `expand` asking for the idempotency property of each comment listed. */
export const IDEMPOTENCY_EXPAND = `metadata.properties.${CONFLUENCE_IDEMPOTENCY_PROPERTY}`;

export interface ContentJson {
  id?: string;
  type?: string;
  title?: string;
  container?: { id?: string };
  ancestors?: { id?: string; type?: string }[];
  history?: { createdBy?: { accountId?: string; displayName?: string } };
  body?: { storage?: { value?: string } };
  space?: { key?: string };
  version?: { number?: number };
  metadata?: { properties?: Record<string, { value?: { idempotencyKey?: string } } | undefined> };
  _links?: { webui?: string };
}

export interface SearchJson {
  results?: {
    content?: { id?: string; title?: string };
    title?: string;
    excerpt?: string;
    url?: string;
  }[];
}

/** A body in storage format, as the content API takes it. */
export function storageBody(storage: string): {
  storage: { value: string; representation: 'storage' };
} {
  return { storage: { value: storage, representation: 'storage' } };
}

/** The property block that tags new content with `key`. */
export function idempotencyMetadata(key: string) {
  const property = { key: CONFLUENCE_IDEMPOTENCY_PROPERTY, value: { idempotencyKey: key } };
  return { properties: { [CONFLUENCE_IDEMPOTENCY_PROPERTY]: property } };
}

/** The idempotency key a listed comment carries, if any. */
export function idempotencyKeyOf(content: ContentJson): string | undefined {
  return content.metadata?.properties?.[CONFLUENCE_IDEMPOTENCY_PROPERTY]?.value?.idempotencyKey;
}

/** The site's root without a trailing slash, for links. */
function root(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/** A page read with `expand=body.storage,version`. */
export function toWikiPage(json: ContentJson, baseUrl: string, action: string): WikiPage {
  if (!json.id || json.type !== 'page' || json.version?.number === undefined) {
    throw unexpectedAnswer('Confluence', action);
  }
  return {
    id: json.id,
    title: json.title ?? '',
    markdown: storageToMarkdown(json.body?.storage?.value ?? ''),
    version: json.version.number,
    url: `${root(baseUrl)}${json._links?.webui ?? `/pages/viewpage.action?pageId=${json.id}`}`,
  };
}

/** Search results, highlight markers and tags stripped from the excerpts. */
export function toSearchHits(json: SearchJson, baseUrl: string): WikiSearchHit[] {
  return (json.results ?? []).flatMap((result) => {
    const id = result.content?.id;
    if (!id) return [];
    const excerpt = (result.excerpt ?? '')
      .replace(/@@@(end)?hl@@@/g, '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return [
      {
        id,
        title: result.content?.title ?? result.title ?? '',
        url: `${root(baseUrl)}${result.url ?? ''}`,
        excerpt,
      },
    ];
  });
}

/** A CQL string literal: quotes and backslashes escaped. */
export function cqlString(text: string): string {
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}
