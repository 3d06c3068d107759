import { startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll } from '@jest/globals';
import { startPair, type PairKind, type PlatformPair } from './platform-pairs.js';

/**
 * How long a scenario waits for one run: on the embedded pair a run also drives PGlite's
 * checkpoints (and the first one the thread's sandbox), which on a loaded machine takes minutes.
 */
export const SLOW_RUN_TIMEOUT_MS = 300_000;

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} has not started (its beforeAll failed?)`);
  return value;
}

/** A fake OpenAI-compatible provider for the whole test file: started first, closed last. */
export function fakeOpenAiForFile(): () => FakeLlmServer {
  let fake: FakeLlmServer | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake?.close();
  });
  return () => started(fake, 'the fake provider');
}

/**
 * The platform pair of one `describeEachPair` body, started before its tests with `env()` (read
 * then, so it may use what other hooks started) and closed after them.
 */
export function pairForSuite(
  kind: PairKind,
  env: () => Record<string, string>,
): () => PlatformPair {
  let pair: PlatformPair | undefined;
  beforeAll(async () => {
    pair = await startPair(kind, env());
  }, 60_000);
  afterAll(async () => {
    await pair?.close();
  });
  return () => started(pair, 'the pair');
}
