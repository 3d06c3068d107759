import { el, formText } from './dom.js';

/** A labelled text field. */
export function input(name: string, label: string, value: string | null, placeholder = '') {
  return el(
    'label',
    {},
    el('span', {}, label),
    el('input', { name, value: value ?? '', placeholder }),
  );
}

/** A labelled checkbox. */
export function checkbox(name: string, label: string, checked: boolean): HTMLElement {
  return el(
    'label',
    { class: 'check' },
    el('input', { type: 'checkbox', name, checked }),
    ` ${label}`,
  );
}

/** A yes / no / "not set" choice: not set leaves the level below in force. */
export function choice(name: string, label: string, value: boolean | null, unset: string) {
  const option = (key: string, text: string, on: boolean) =>
    el('option', { value: key, selected: on }, text);
  return el(
    'label',
    {},
    el('span', {}, label),
    el(
      'select',
      { name },
      option('', unset, value === null),
      option('yes', 'yes', value === true),
      option('no', 'no', value === false),
    ),
  );
}

/** A text field's value, null when blank. */
export function nullable(data: FormData, name: string): string | null {
  const value = formText(data, name).trim();
  return value === '' ? null : value;
}

/** A {@link choice}'s value. */
export function chosen(data: FormData, name: string): boolean | null {
  const value = formText(data, name);
  return value === '' ? null : value === 'yes';
}
