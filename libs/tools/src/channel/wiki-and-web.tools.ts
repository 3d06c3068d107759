import { z } from 'zod';
import type { CaravelTool } from '../core/tool-definition.js';
import type {
  HttpResponseSummary,
  WebPort,
  WebSearchProvider,
  WebSearchResult,
  WikiPage,
  WikiPort,
  WikiSearchHit,
} from './channel.ports.js';
import { defineChannelTool } from './channel-tool.js';
import { wrapUntrusted } from './untrusted-content.js';

const pageId = z.string().trim().regex(/^\d+$/, 'a numeric Confluence page id');
const markdown = z.string().trim().min(1).max(200_000);

function renderPage(page: WikiPage): string {
  const head = `Page ${page.id} "${page.title}" (version ${page.version}) ${page.url}`;
  return `${head}\n${wrapUntrusted(page.markdown, { source: 'confluence page', id: page.id })}`;
}

function renderHits(hits: readonly (WikiSearchHit | WebSearchResult)[], source: string): string {
  if (hits.length === 0) return 'No results.';
  return hits
    .map((hit) => {
      const excerpt = 'excerpt' in hit ? hit.excerpt : hit.snippet;
      return wrapUntrusted(`${hit.title}\n${hit.url}\n${excerpt}`, { source });
    })
    .join('\n');
}

/** The Confluence tools: get/create/update page, comment, search. */
export function confluenceTools(wiki: WikiPort): CaravelTool[] {
  return [
    defineChannelTool({
      name: 'confluence_get_page',
      description: 'Read a Confluence page (as markdown).',
      effect: 'read',
      input: z.strictObject({ page_id: pageId }),
      run: (input) => wiki.getPage(input.page_id),
      observe: renderPage,
    }),
    defineChannelTool({
      name: 'confluence_create_page',
      description: 'Create a Confluence page from markdown.',
      effect: 'write',
      input: z.strictObject({
        space: z.string().trim().min(1).describe('The space id or key.'),
        title: z.string().trim().min(1).max(255),
        body: markdown.describe('The page content (markdown).'),
        parent_id: pageId.optional(),
      }),
      run: (input) =>
        wiki.createPage({
          space: input.space,
          title: input.title,
          markdown: input.body,
          ...(input.parent_id ? { parentId: input.parent_id } : {}),
        }),
      observe: (page) => `Created page ${page.id}: ${page.url}`,
    }),
    defineChannelTool({
      name: 'confluence_update_page',
      description: 'Replace the content (and optionally the title) of a Confluence page.',
      effect: 'write',
      input: z.strictObject({
        page_id: pageId,
        body: markdown.describe('The new content (markdown).'),
        title: z.string().trim().min(1).max(255).optional(),
      }),
      run: (input) =>
        wiki.updatePage(input.page_id, {
          markdown: input.body,
          ...(input.title ? { title: input.title } : {}),
        }),
      observe: (page) => `Updated page ${page.id} to version ${page.version}: ${page.url}`,
    }),
    defineChannelTool({
      name: 'confluence_comment',
      description: 'Post a comment (markdown) on a Confluence page.',
      effect: 'reply',
      input: z.strictObject({ page_id: pageId, body: markdown }),
      run: (input) => wiki.comment(input.page_id, input.body),
      observe: (output) => `Comment ${output.id} posted.`,
    }),
    defineChannelTool({
      name: 'confluence_search',
      description: 'Search Confluence pages by text.',
      effect: 'read',
      input: z.strictObject({
        query: z.string().trim().min(1).max(500),
        limit: z.number().int().min(1).max(50).default(10),
      }),
      run: (input) => wiki.search(input.query, input.limit),
      observe: (hits) => renderHits(hits, 'confluence search'),
    }),
  ];
}

function renderResponse(response: HttpResponseSummary, source: string): string {
  const head = `HTTP ${response.status} from ${response.url}`;
  return `${head}\n${wrapUntrusted(response.body, { source, url: response.url })}`;
}

const publicUrl = z.url({ protocol: /^https?$/, error: 'an absolute http(s) URL' }).max(4096);

/** `http_request`, `fetch_url` and `web_search` (the last only with a provider). */
export function webTools(web: WebPort, search?: WebSearchProvider): CaravelTool[] {
  const tools: CaravelTool[] = [
    defineChannelTool({
      name: 'http_request',
      description:
        'Make an HTTP request to a public URL from the host (not the sandbox). Private and ' +
        'loopback addresses are refused.',
      effect: 'write',
      input: z.strictObject({
        method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
        url: publicUrl,
        headers: z.record(z.string(), z.string()).optional(),
        body: z.string().max(1_000_000).optional(),
      }),
      run: (input) => web.request(input),
      observe: (response) => renderResponse(response, 'http response'),
    }),
    defineChannelTool({
      name: 'fetch_url',
      description: 'Fetch a public web page and read it as text.',
      effect: 'read',
      input: z.strictObject({ url: publicUrl }),
      run: (input) => web.fetchText(input.url),
      observe: (response) => renderResponse(response, 'web page'),
    }),
  ];
  if (search) {
    tools.push(
      defineChannelTool({
        name: 'web_search',
        description: 'Search the web; returns titles, URLs and snippets.',
        effect: 'read',
        input: z.strictObject({
          query: z.string().trim().min(1).max(400),
          limit: z.number().int().min(1).max(20).default(5),
        }),
        run: (input) => search.search(input.query, input.limit),
        observe: (results) => renderHits(results, 'web search'),
      }),
    );
  }
  return tools;
}
