import { ApiError } from './api.js';
import { el } from './dom.js';

/** A failure as the person reads it: the API's code and message, never a stack. */
export function errorView(error: unknown): HTMLElement {
  const text =
    error instanceof ApiError ? `${error.code}: ${error.message}` : 'The dashboard did not answer.';
  return el('p', { class: 'error', role: 'alert' }, text);
}
