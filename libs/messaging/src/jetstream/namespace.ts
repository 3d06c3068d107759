import type { StreamSpec } from '@caravel/contracts';
import { partitionToken } from '@caravel/contracts';
import { AppError } from '@caravel/errors';

const NAMESPACE = /^[A-Za-z0-9_-]+$/;
const LEASE_BUCKET = 'caravel_leases';
const PARKING_BUCKET = 'caravel_parked';
const REPLAYED_BUCKET = 'caravel_replayed';

/**
 * Maps logical names (stream specs, subjects, durables) to what lives on the NATS server. With a
 * namespace, every name is prefixed, so test runs share one server without seeing each other;
 * without one, names are used as declared.
 */
export class Namespace {
  constructor(readonly prefix: string | undefined) {
    if (prefix !== undefined && !NAMESPACE.test(prefix)) {
      throw new AppError(
        'CONFIG_INVALID',
        `namespace "${prefix}" may only hold letters, digits, "-" and "_"`,
      );
    }
  }

  streamName(spec: { readonly name: string }): string {
    return this.prefix ? `${this.prefix}_${spec.name}` : spec.name;
  }

  streamSubjects(spec: Pick<StreamSpec, 'subjects'>): string[] {
    return spec.subjects.map((subject) => this.subject(subject));
  }

  subject(logical: string): string {
    return this.prefix ? `${this.prefix}.${logical}` : logical;
  }

  /** The logical subject of a server-side one (the inverse of {@link subject}). */
  logicalSubject(actual: string): string {
    const head = this.prefix ? `${this.prefix}.` : '';
    return head && actual.startsWith(head) ? actual.slice(head.length) : actual;
  }

  consumerName(durable: string): string {
    return this.prefix ? `${this.prefix}_${durable}` : durable;
  }

  /** One durable per ordering partition: `<durable>-p07`. */
  partitionConsumerName(durable: string, partition: number): string {
    return `${this.consumerName(durable)}-${partitionToken(partition)}`;
  }

  leaseBucket(): string {
    return this.prefix ? `${this.prefix}_${LEASE_BUCKET}` : LEASE_BUCKET;
  }

  /**
   * The KV bucket where ordered consumers park a thread whose oldest message keeps failing (and
   * shared ones a message that failed with an outage).
   */
  parkingBucket(): string {
    return this.prefix ? `${this.prefix}_${PARKING_BUCKET}` : PARKING_BUCKET;
  }

  /** The KV bucket that marks dead letters handed back to their consumer. */
  replayedBucket(): string {
    return this.prefix ? `${this.prefix}_${REPLAYED_BUCKET}` : REPLAYED_BUCKET;
  }
}
