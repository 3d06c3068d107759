/**
 * Reads `@<bot> autofix on|off` in a PR comment: a person's per-PR switch for CI babysitting.
 * The last such line in the comment wins; null when the comment says neither (so a comment that
 * merely mentions the bot changes nothing). Case and extra spaces do not matter; the words must
 * stand alone (`autofixing` or `onboarding` do not count).
 */
export function autofixToggle(comment: string, botLogin: string): 'on' | 'off' | null {
  const bot = botLogin.replace(/\[bot\]$/i, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`@${bot}(?:\\[bot\\])?\\s+autofix\\s+(on|off)\\b`, 'gi');
  let toggle: 'on' | 'off' | null = null;
  for (const match of comment.matchAll(pattern)) {
    toggle = match[1]?.toLowerCase() === 'on' ? 'on' : 'off';
  }
  return toggle;
}
