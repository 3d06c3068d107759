import type { SandboxRepository, SandboxRow } from '@caravel/db';
import type {
  SandboxBindingRecord,
  SandboxBindingStore,
  SandboxRetirement,
} from '@caravel/sandbox';

function toRecord(row: SandboxRow): SandboxBindingRecord {
  return {
    id: row.id,
    threadId: row.threadId,
    provider: row.provider,
    externalId: row.externalId,
    lastUsedAt: row.lastUsedAt,
  };
}

/** The lifecycle's binding store over the `sandboxes` tables. */
export class RepositoryBindingStore implements SandboxBindingStore {
  constructor(private readonly sandboxes: SandboxRepository) {}

  async get(threadId: string): Promise<SandboxBindingRecord | null> {
    const row = await this.sandboxes.getByThread(threadId);
    return row ? toRecord(row) : null;
  }

  async bind(binding: SandboxBindingRecord) {
    const { sandbox, bound } = await this.sandboxes.bind(binding);
    return { binding: toRecord(sandbox), bound };
  }

  async replace(bindingId: string, retirement: SandboxRetirement, next: SandboxBindingRecord) {
    return (await this.sandboxes.replace(bindingId, retirement, next)) !== null;
  }

  async retire(bindingId: string, retirement: SandboxRetirement): Promise<boolean> {
    return (await this.sandboxes.retire(bindingId, retirement)) !== null;
  }

  async touch(threadId: string): Promise<void> {
    await this.sandboxes.touch(threadId);
  }

  async listIdle(before: Date, limit: number): Promise<SandboxBindingRecord[]> {
    return (await this.sandboxes.listIdle(before, limit)).map(toRecord);
  }
}
