import type { StreamSpec } from '@caravel/contracts';
import {
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { Namespace } from './namespace.js';

const DUPLICATE_WINDOW_MS = 2 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

/** The server-side config a stream spec declares (limits retention, file storage, 2 min dedupe). */
export function streamConfig(
  spec: StreamSpec,
  namespace: Namespace,
): Partial<StreamConfig> & { name: string } {
  return {
    name: namespace.streamName(spec),
    subjects: namespace.streamSubjects(spec),
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(spec.maxAgeDays * DAY_MS),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    num_replicas: 1,
  };
}

export function isNotFound(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamNotFound ||
      error.code === JetStreamApiCodes.ConsumerNotFound)
  );
}

/** Adds each stream, or updates it to the declared config; never deletes anything. */
export async function applyStreams(
  jsm: JetStreamManager,
  specs: readonly StreamSpec[],
  namespace: Namespace,
): Promise<void> {
  for (const spec of specs) {
    const wanted = streamConfig(spec, namespace);
    try {
      const { config } = await jsm.streams.info(wanted.name);
      if (!sameStreamConfig(config, wanted))
        await jsm.streams.update(wanted.name, { ...config, ...wanted });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await jsm.streams.add(wanted).catch(async (addError: unknown) => {
        await jsm.streams.info(wanted.name).catch(() => {
          throw addError;
        });
      });
    }
  }
}

function sameStreamConfig(current: StreamConfig, wanted: Partial<StreamConfig>): boolean {
  return (
    JSON.stringify([...current.subjects].sort()) ===
      JSON.stringify([...(wanted.subjects ?? [])].sort()) &&
    current.max_age === wanted.max_age &&
    current.duplicate_window === wanted.duplicate_window
  );
}
