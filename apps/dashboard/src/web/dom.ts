/**
 * The web app's only way to build the page: elements from tag, attributes and children, where a
 * string child is always a text node. Thread text (titles, thoughts, diffs) is untrusted, and
 * nothing here ever parses a string as HTML.
 */
export type Child = Node | string | number | null | undefined | false;

export type Attributes = Record<string, string | number | boolean | undefined | EventListener>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `parent` shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

const LINK = /https?:\/\/[^\s<>"')]+/g;

/** Text with its http(s) URLs as links (a pull request's, say); everything else stays text. */
export function linkified(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    append(fragment, text.slice(last, match.index));
    append(fragment, el('a', { href: match[0], rel: 'noopener noreferrer' }, match[0]));
    last = (match.index ?? 0) + match[0].length;
  }
  append(fragment, text.slice(last));
  return fragment;
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** A text field of a submitted form ('' when absent). */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}

/** A table with a header row of column names, a caption when given, and the body's rows. */
export function dataTable(
  attributes: Attributes,
  caption: string | null,
  columns: string[],
  rows: HTMLTableRowElement[],
): HTMLTableElement {
  return el(
    'table',
    attributes,
    caption !== null && el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...columns.map((name) => el('th', { scope: 'col' }, name)))),
    el('tbody', {}, ...rows),
  );
}
