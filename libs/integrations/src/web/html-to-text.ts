import { decodeHtmlEntities } from '../markup/html-entities.js';

/** A page reduced to what a reader sees. */
export interface ReadablePage {
  title?: string;
  /** Markdown-ish text: headings, paragraphs, lists, links, code blocks, table rows. */
  text: string;
}

/** Elements whose content is never text a reader sees. */
const HIDDEN = 'script|style|noscript|template|svg|math|iframe|object|canvas|select|head|nav';
const HIDDEN_ELEMENTS = new RegExp(`<(${HIDDEN})\\b[^>]*>[\\s\\S]*?(?:<\\/\\1\\s*>|$)`, 'gi');
const TOKENS =
  /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|[^<]+|</g;
const PARAGRAPH_TAGS = new Set([
  'p',
  'ul',
  'ol',
  'dl',
  'table',
  'blockquote',
  'figure',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'form',
  'fieldset',
  'details',
  'address',
]);
const LINE_TAGS = new Set(['div', 'tr', 'dt', 'dd', 'figcaption', 'summary', 'caption', 'center']);
const EMPHASIS: Record<string, string> = { strong: '**', b: '**', em: '*', i: '*', code: '`' };

// Whitespace inside <pre> and list indentation survive the collapsing below in these stand-ins.
const KEPT_NEWLINE = '\uE000';
const KEPT_SPACE = '\uE001';

interface OpenInline {
  tag: string;
  start: number;
  href?: string;
}

/**
 * Turns an HTML page into readable markdown-ish text: scripts, styles, navigation and other
 * hidden parts dropped; the `<main>` element (or the only `<article>`, else `<body>`) kept;
 * headings as `#`, lists as `-`/`1.`, links as `[text](absolute url)`, `<pre>` as fenced code,
 * table rows as `| a | b |`; entities decoded and whitespace collapsed.
 */
export function htmlToText(html: string, baseUrl?: string): ReadablePage {
  const titleMatch = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  const title = titleMatch ? collapse(decodeHtmlEntities(titleMatch[1] ?? '')).trim() : '';
  const visible = mainContent(html.replace(HIDDEN_ELEMENTS, ' '));
  const writer = new TextWriter(baseUrl);
  for (const token of visible.matchAll(TOKENS)) {
    const [whole, closing, name] = token;
    if (whole.startsWith('<!--')) continue;
    if (name === undefined) writer.text(whole);
    else if (closing) writer.close(name.toLowerCase());
    else writer.open(name.toLowerCase(), token[3] ?? '');
  }
  return { ...(title ? { title } : {}), text: writer.result() };
}

function mainContent(html: string): string {
  const inner = (tag: string): string[] =>
    [...html.matchAll(new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)<\\/${tag}\\s*>`, 'gi'))].map(
      (match) => match[1] ?? '',
    );
  const main = inner('main');
  if (main.length > 0) return main.join('\n');
  const articles = inner('article');
  if (articles.length === 1) return articles[0] ?? '';
  const body = /<body\b[^>]*>([\s\S]*)/i.exec(html);
  return body?.[1] ?? html;
}

function attribute(attributes: string, name: string): string | undefined {
  const found = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(
    attributes,
  );
  if (!found) return undefined;
  return decodeHtmlEntities(found[1] ?? found[2] ?? found[3] ?? '').trim();
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

class TextWriter {
  private readonly out: string[] = [];
  private readonly inline: OpenInline[] = [];
  private readonly lists: { ordered: boolean; next: number }[] = [];
  private preDepth = 0;

  constructor(private readonly baseUrl: string | undefined) {}

  text(raw: string): void {
    const text = decodeHtmlEntities(raw);
    if (this.preDepth > 0) {
      this.out.push(text.replace(/\r?\n/g, KEPT_NEWLINE).replace(/[ \t]/g, KEPT_SPACE));
    } else {
      this.out.push(collapse(text));
    }
  }

  open(tag: string, attributes: string): void {
    if (this.preDepth > 0 && tag !== 'pre') return;
    const heading = /^h([1-6])$/.exec(tag);
    const nestedList = (tag === 'ul' || tag === 'ol') && this.lists.length > 0;
    // A nested list starts on its first item's line.
    if (heading) this.out.push(`\n\n${'#'.repeat(Number(heading[1]))} `);
    else if (PARAGRAPH_TAGS.has(tag) && !nestedList) this.out.push('\n\n');
    else if (LINE_TAGS.has(tag)) this.out.push('\n');
    if (tag === 'ul' || tag === 'ol') this.lists.push({ ordered: tag === 'ol', next: 1 });
    else if (tag === 'li') this.listItem();
    else if (tag === 'br') this.out.push('\n');
    else if (tag === 'hr') this.out.push('\n\n---\n\n');
    else if (tag === 'td' || tag === 'th') this.out.push('| ');
    else if (tag === 'pre') this.openPre();
    else if (tag === 'img') this.image(attributes);
    else if (tag === 'a') this.openInline(tag, attribute(attributes, 'href'));
    else if (EMPHASIS[tag]) this.openInline(tag);
  }

  close(tag: string): void {
    if (tag === 'pre') return this.closePre();
    if (this.preDepth > 0) return;
    const nestedList = (tag === 'ul' || tag === 'ol') && this.lists.length > 1;
    if (nestedList) this.out.push('\n');
    else if (/^h[1-6]$/.test(tag) || PARAGRAPH_TAGS.has(tag)) this.out.push('\n\n');
    else if (tag === 'tr') this.out.push(' |');
    else if (LINE_TAGS.has(tag)) this.out.push('\n');
    else if (tag === 'td' || tag === 'th') this.out.push(' ');
    if (tag === 'ul' || tag === 'ol') this.lists.pop();
    else if (tag === 'a' || EMPHASIS[tag]) this.closeInline(tag);
  }

  result(): string {
    while (this.inline.length > 0) this.closeInline(this.inline[this.inline.length - 1]?.tag ?? '');
    return this.out
      .join('')
      .replace(/[ \t]*\n[ \t]*/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/ {2,}/g, ' ')
      .replaceAll(KEPT_NEWLINE, '\n')
      .replaceAll(KEPT_SPACE, ' ')
      .trim();
  }

  private listItem(): void {
    const list = this.lists[this.lists.length - 1];
    const indent = KEPT_SPACE.repeat(2 * Math.max(0, this.lists.length - 1));
    const marker = list?.ordered ? `${list.next}. ` : '- ';
    if (list) list.next += 1;
    this.out.push(`\n${indent}${marker}`);
  }

  private openPre(): void {
    if (this.preDepth === 0) this.out.push(`\n\n\`\`\`${KEPT_NEWLINE}`);
    this.preDepth += 1;
  }

  private closePre(): void {
    if (this.preDepth === 0) return;
    this.preDepth -= 1;
    if (this.preDepth === 0) this.out.push(`${KEPT_NEWLINE}\`\`\`\n\n`);
  }

  private image(attributes: string): void {
    const alt = attribute(attributes, 'alt');
    if (alt) this.out.push(`[image: ${collapse(alt)}]`);
  }

  private openInline(tag: string, href?: string): void {
    if (tag === 'a') this.closeInline('a');
    this.inline.push({ tag, start: this.out.length, ...(href ? { href } : {}) });
  }

  /** Wraps what was written since the element opened; empty elements leave no markers. */
  private closeInline(tag: string): void {
    const index = this.inline.map((open) => open.tag).lastIndexOf(tag);
    if (index < 0) return;
    // Misnested markup (<b><i></b>): what opened inside ends with it.
    while (this.inline.length > index + 1)
      this.closeInline(this.inline[this.inline.length - 1]?.tag ?? '');
    const open = this.inline.pop();
    if (!open) return;
    const inner = this.out.splice(open.start).join('');
    const content = inner.trim();
    if (content === '') return void this.out.push(inner);
    const lead = inner.startsWith(' ') ? ' ' : '';
    const trail = inner.endsWith(' ') ? ' ' : '';
    const link = open.tag === 'a' ? this.linkTarget(open.href) : undefined;
    const wrapped =
      open.tag === 'a'
        ? link
          ? `[${content}](${link})`
          : content
        : `${EMPHASIS[open.tag]}${content}${EMPHASIS[open.tag]}`;
    this.out.push(`${lead}${wrapped}${trail}`);
  }

  private linkTarget(href: string | undefined): string | undefined {
    if (!href || href.startsWith('#')) return undefined;
    try {
      const url = new URL(href, this.baseUrl);
      return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:'
        ? url.href
        : undefined;
    } catch {
      return undefined;
    }
  }
}
