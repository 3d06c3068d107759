import { appendFile, mkdir, readFile } from 'node:fs/promises';
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
    const text = await readFile(this.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    const records = new Map<string, CreateRecord>();
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const parsed = recordSchema.safeParse(safeJson(line));
      if (parsed.success) records.set(parsed.data.key, parsed.data);
    }
    return records;
  }

  async find(key: string): Promise<CreateRecord | undefined> {
    return (await this.load()).get(key);
  }

  async append(record: CreateRecord): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    await appendFile(this.file, `${JSON.stringify(record)}\n`);
  }
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
