import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

/** One line of `create.jsonl`: a PR turned into a task. */
export interface CreateRecord {
  readonly key: string;
  readonly repo: string;
  readonly pr: number;
  readonly task_id: string;
  /** Absolute path of the task directory. */
  readonly harbor: string;
  readonly ts: string;
  /** Whether the task reached the dataset repository (false without publishing, on a dry run or a failed publish). */
  readonly published: boolean;
  /** The task's PR on the dataset repository, once published. */
  readonly pr_url?: string;
}

const recordSchema = z.object({
  key: z.string(),
  repo: z.string(),
  pr: z.number().int(),
  task_id: z.string(),
  harbor: z.string(),
  ts: z.string(),
  // Records written before the flag existed are read as published.
  published: z.boolean().default(true),
  pr_url: z.string().optional(),
});

/**
 * The local dedupe log, one JSON record per line, keyed by `owner/repo#N` (lowercased). The last
 * record of a key wins. Unreadable lines are skipped: a torn final line after a crash must not
 * make every later run fail.
 */
export class CreateLog {
  constructor(readonly file: string) {}

  /** The latest record per key. */
  async load(): Promise<Map<string, CreateRecord>> {
    const records = new Map<string, CreateRecord>();
    for (const line of await this.lines()) {
      const record = parse(line);
      if (record) records.set(record.key, record);
    }
    return records;
  }

  async find(key: string): Promise<CreateRecord | undefined> {
    return (await this.load()).get(key);
  }

  /**
   * Makes `record` its key's one record: earlier lines of the key are dropped and the record
   * appended, every other line kept as it was. The file is replaced atomically, so a publish
   * retried after a failure updates the task's record instead of leaving it stale or doubled.
   */
  async put(record: CreateRecord): Promise<void> {
    const kept = (await this.lines()).filter((line) => parse(line)?.key !== record.key);
    await mkdir(dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, [...kept, JSON.stringify(record)].map((l) => `${l}\n`).join(''));
    await rename(temporary, this.file);
  }

  private async lines(): Promise<string[]> {
    const text = await readFile(this.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    return text.split('\n').filter((line) => line.trim() !== '');
  }
}

function parse(line: string): CreateRecord | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const { pr_url: prUrl, ...rest } = parsed.data;
  return { ...rest, ...(prUrl ? { pr_url: prUrl } : {}) };
}
