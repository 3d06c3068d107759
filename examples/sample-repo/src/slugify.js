/**
 * Turns a title into a URL slug: lower case, words joined by single dashes,
 * no leading or trailing dash.
 */
export function slugify(title) {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-/, '');
}
