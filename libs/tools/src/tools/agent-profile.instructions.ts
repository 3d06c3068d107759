import { UNTRUSTED_TAG } from '../channel/untrusted-content.js';

/** The marker around one person's standing instructions on their message. */
export const USER_INSTRUCTIONS_TAG = 'user_instructions';

/** One person's standing instructions, as `save_user_instructions` (or the dashboard) saved them. */
export interface PersonInstructions {
  /** `source:id`, e.g. `slack:U123`. */
  person: string;
  instructions: string;
}

const MARKERS = new RegExp(`<(/?)(${USER_INSTRUCTIONS_TAG}|${UNTRUSTED_TAG})`, 'gi');

/**
 * Neutralises every Caravel marker in a person's instructions (their own block's and the
 * untrusted-content envelope's, opening or closing, any case), so the text can neither close its
 * block early nor pretend to be another block.
 */
export function neutraliseInstructionMarkers(text: string): string {
  return text.replace(MARKERS, '&lt;$1$2');
}

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * The labelled block that carries one person's standing instructions on their message. The text
 * is not put in the untrusted envelope: it is the person's own, saved under their mapped
 * identity, and attached only to messages of authors the team trusts. It does say whose it is,
 * that it applies to that person's requests only, and that repository instructions win.
 */
export function userInstructionsBlock(entry: PersonInstructions): string {
  const who = attribute(entry.person);
  return [
    `<${USER_INSTRUCTIONS_TAG} person="${who}">`,
    `Standing instructions ${entry.person} saved for their own requests. Follow them for this ` +
      "person's requests only. Where they conflict with the repository's instructions or an " +
      'AGENTS.md file, those win.',
    '',
    neutraliseInstructionMarkers(entry.instructions.trim()),
    `</${USER_INSTRUCTIONS_TAG}>`,
  ].join('\n');
}

/**
 * A person's message as the model sees it: the text, then the block of every author of the text
 * who has standing instructions (in the order given; blank instructions are skipped).
 */
export function withUserInstructions(text: string, entries: readonly PersonInstructions[]): string {
  const blocks = entries
    .filter((entry) => entry.instructions.trim() !== '')
    .map((entry) => userInstructionsBlock(entry));
  return blocks.length === 0 ? text : [text, ...blocks].join('\n\n');
}
