import type { ThreadMessageRepository, UserInstructionsRepository } from '@caravel/db';
import type { UserInstructionsLookup } from '@caravel/middleware';
import type { PersonInstructions } from '@caravel/tools';

/** People's standing instructions as the message-queue middleware reads them. */
export function instructionsLookup(store: UserInstructionsRepository): UserInstructionsLookup {
  return {
    instructionsOf: async (person) => (await store.find(person))?.instructions ?? null,
  };
}

/**
 * The standing instructions of the people whose words open a run: the trusted authors of the
 * follow-ups a run of follow-ups was made of (an untrusted author's get none), else the person
 * who asked for the run. Nobody else's: the thread may have several people.
 */
export async function openingInstructions(
  stores: { messages: ThreadMessageRepository; instructions: UserInstructionsRepository },
  run: { threadId: string; runId: string; requestedBy?: string },
): Promise<PersonInstructions[]> {
  const taken = (await stores.messages.takenBy(run.threadId, run.runId)).filter(
    (message) => message.kind === 'message',
  );
  const authors =
    taken.length > 0
      ? taken.filter((message) => message.trusted).map((message) => message.author)
      : run.requestedBy
        ? [run.requestedBy]
        : [];
  const entries: PersonInstructions[] = [];
  for (const person of new Set(authors)) {
    const saved = await stores.instructions.find(person);
    if (saved) entries.push({ person, instructions: saved.instructions });
  }
  return entries;
}
