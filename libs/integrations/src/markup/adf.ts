import {
  parseInline,
  parseMarkdownBlocks,
  renderInline,
  renderMarkdown,
  type InlineSpan,
  type MarkdownBlock,
} from './markdown-blocks.js';

/** A node of the Atlassian Document Format (Jira Cloud's rich text). */
export interface AdfNode {
  type: string;
  /** Only on the `doc` root: the ADF version (1). */
  version?: number;
  text?: string;
  attrs?: Record<string, unknown>;
  marks?: { type: string; attrs?: Record<string, unknown> }[];
  content?: AdfNode[];
}

function adfText(text: string): AdfNode[] {
  return parseInline(text)
    .filter((span) => span.text !== '')
    .map((span) => {
      const marks: NonNullable<AdfNode['marks']> = [];
      if (span.code) marks.push({ type: 'code' });
      if (span.strong) marks.push({ type: 'strong' });
      if (span.em) marks.push({ type: 'em' });
      if (span.href) marks.push({ type: 'link', attrs: { href: span.href } });
      return { type: 'text', text: span.text, ...(marks.length > 0 ? { marks } : {}) };
    });
}

function adfBlock(block: MarkdownBlock): AdfNode {
  switch (block.type) {
    case 'heading':
      return { type: 'heading', attrs: { level: block.level }, content: adfText(block.text) };
    case 'paragraph':
      return { type: 'paragraph', content: adfText(block.text) };
    case 'list':
      return {
        type: block.ordered ? 'orderedList' : 'bulletList',
        content: block.items.map((item) => ({
          type: 'listItem',
          content: [{ type: 'paragraph', content: adfText(item) }],
        })),
      };
    case 'code':
      return {
        type: 'codeBlock',
        ...(block.language ? { attrs: { language: block.language } } : {}),
        content: block.text ? [{ type: 'text', text: block.text }] : [],
      };
    case 'rule':
      return { type: 'rule' };
  }
}

/** Markdown → an ADF document (headings, paragraphs, lists, code, rules, inline marks). */
export function markdownToAdf(markdown: string): AdfNode {
  return { type: 'doc', version: 1, content: parseMarkdownBlocks(markdown).map(adfBlock) };
}

function spanOf(node: AdfNode): InlineSpan {
  const marks = node.marks ?? [];
  const link = marks.find((mark) => mark.type === 'link')?.attrs?.['href'];
  return {
    text: node.text ?? '',
    ...(marks.some((m) => m.type === 'code') ? { code: true } : {}),
    ...(marks.some((m) => m.type === 'strong') ? { strong: true } : {}),
    ...(marks.some((m) => m.type === 'em') ? { em: true } : {}),
    ...(typeof link === 'string' ? { href: link } : {}),
  };
}

function inlineText(nodes: readonly AdfNode[] = []): string {
  return nodes
    .map((node) => {
      if (node.type === 'text') return renderInline(spanOf(node));
      if (node.type === 'hardBreak') return '\n';
      if (node.type === 'mention') {
        const text = node.attrs?.['text'];
        return typeof text === 'string' ? text : '@someone';
      }
      return inlineText(node.content);
    })
    .join('');
}

function blockOf(node: AdfNode): MarkdownBlock {
  switch (node.type) {
    case 'heading':
      return {
        type: 'heading',
        level: Number(node.attrs?.['level'] ?? 1),
        text: inlineText(node.content),
      };
    case 'bulletList':
    case 'orderedList':
      return {
        type: 'list',
        ordered: node.type === 'orderedList',
        items: (node.content ?? []).map((item) =>
          (item.content ?? []).map((p) => inlineText(p.content)).join(' '),
        ),
      };
    case 'codeBlock':
      return {
        type: 'code',
        language: typeof node.attrs?.['language'] === 'string' ? node.attrs['language'] : '',
        text: (node.content ?? []).map((t) => t.text ?? '').join(''),
      };
    case 'rule':
      return { type: 'rule' };
    default:
      return { type: 'paragraph', text: inlineText(node.content ?? [node]) };
  }
}

/** An ADF document → markdown; unknown nodes keep their text. Null/absent gives ''. */
export function adfToMarkdown(doc: AdfNode | null | undefined): string {
  if (!doc) return '';
  return renderMarkdown((doc.content ?? []).map(blockOf));
}
