/** A block of the markdown subset the agent writes to trackers and wikis. */
export type MarkdownBlock =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; ordered: boolean; items: string[] }
  | { type: 'code'; language: string; text: string }
  | { type: 'rule' };

/** A run of inline text with its marks. */
export interface InlineSpan {
  text: string;
  strong?: boolean;
  em?: boolean;
  code?: boolean;
  href?: string;
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*\d+[.)]\s+(.*)$/;

/**
 * Splits markdown into blocks: ATX headings, fenced code, bullet and ordered lists, rules and
 * paragraphs (blank-line separated). Anything richer degrades to paragraphs of text.
 */
export function parseMarkdownBlocks(markdown: string): MarkdownBlock[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MarkdownBlock[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    if (paragraph.length > 0) blocks.push({ type: 'paragraph', text: paragraph.join('\n') });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const fence = /^```\s*([\w+-]*)\s*$/.exec(line);
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    const list = BULLET.exec(line) ?? ORDERED.exec(line);
    if (fence) {
      flush();
      const body: string[] = [];
      for (i += 1; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i += 1)
        body.push(lines[i] ?? '');
      blocks.push({ type: 'code', language: fence[1] ?? '', text: body.join('\n') });
    } else if (heading) {
      flush();
      blocks.push({ type: 'heading', level: heading[1]?.length ?? 1, text: heading[2] ?? '' });
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      blocks.push({ type: 'rule' });
    } else if (list) {
      flush();
      const ordered = ORDERED.test(line);
      const items: string[] = [];
      for (; i < lines.length; i += 1) {
        const item = (ordered ? ORDERED : BULLET).exec(lines[i] ?? '');
        if (!item) break;
        items.push(item[1] ?? '');
      }
      i -= 1;
      blocks.push({ type: 'list', ordered, items });
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return blocks;
}

const INLINE =
  /`([^`]+)`|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/g;

/** Splits inline markdown into spans: `code`, **strong**, *em*, [links](url), plain text. */
export function parseInline(text: string): InlineSpan[] {
  const spans: InlineSpan[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index ?? 0;
    if (index > last) spans.push({ text: text.slice(last, index) });
    const [, code, strong1, strong2, em1, em2, label, href] = match;
    if (code !== undefined) spans.push({ text: code, code: true });
    else if (strong1 !== undefined || strong2 !== undefined)
      spans.push({ text: strong1 ?? strong2 ?? '', strong: true });
    else if (em1 !== undefined || em2 !== undefined)
      spans.push({ text: em1 ?? em2 ?? '', em: true });
    else spans.push({ text: label ?? '', href: href ?? '' });
    last = index + match[0].length;
  }
  if (last < text.length) spans.push({ text: text.slice(last) });
  return spans;
}

/** Renders one span back to markdown. */
export function renderInline(span: InlineSpan): string {
  if (span.code) return `\`${span.text}\``;
  let out = span.text;
  if (span.em) out = `*${out}*`;
  if (span.strong) out = `**${out}**`;
  if (span.href) out = `[${out}](${span.href})`;
  return out;
}

/** Renders blocks back to markdown. */
export function renderMarkdown(blocks: readonly MarkdownBlock[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case 'heading':
          return `${'#'.repeat(block.level)} ${block.text}`;
        case 'paragraph':
          return block.text;
        case 'list':
          return block.items
            .map((item, n) => `${block.ordered ? `${n + 1}.` : '-'} ${item}`)
            .join('\n');
        case 'code':
          return `\`\`\`${block.language}\n${block.text}\n\`\`\``;
        case 'rule':
          return '---';
      }
    })
    .join('\n\n');
}
