/** How many partitions ordered consumers split the thread space into. Changing it re-keys subjects. */
export const THREAD_PARTITIONS = 16;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a, the hash NATS uses for deterministic partitioning. */
export function fnv1a32(input: string): number {
  let hash = FNV_OFFSET;
  for (const byte of Buffer.from(input, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash >>> 0;
}

/** The partition a thread's ordered messages live in, `0 .. partitions-1`. */
export function threadPartition(threadId: string, partitions = THREAD_PARTITIONS): number {
  return fnv1a32(threadId) % partitions;
}

export function partitionToken(partition: number): string {
  return `p${partition.toString().padStart(2, '0')}`;
}
