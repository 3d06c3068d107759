import type { IncomingHttpHeaders } from 'node:http';

/** One header's value (the first, when repeated); undefined when absent or empty. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}
