import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

/** A successful task of a repository whose environment and test command later PRs can reuse. */
export interface TaskReference {
  readonly repo: string;
  readonly taskId: string;
  readonly pr: number;
  readonly taskDir: string;
  readonly dockerfile: string;
  readonly testSh: string;
  readonly savedAt: string;
}

const referenceSchema = z.object({
  repo: z.string(),
  taskId: z.string(),
  pr: z.number().int(),
  taskDir: z.string(),
  dockerfile: z.string(),
  testSh: z.string(),
  savedAt: z.string(),
});

/** References older than this are not offered (dependencies and layouts drift). */
export const REFERENCE_MAX_AGE_DAYS = 180;

/** `task_references.json`: one reference per repository (lowercased), the latest success. */
export class TaskReferences {
  constructor(
    readonly file: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async all(): Promise<Record<string, TaskReference>> {
    const text = await readFile(this.file, 'utf8').catch(() => '{}');
    const parsed = z.record(z.string(), referenceSchema).safeParse(safeJson(text));
    return parsed.success ? parsed.data : {};
  }

  /** The repository's reference, unless it is older than {@link REFERENCE_MAX_AGE_DAYS}. */
  async get(repo: string): Promise<TaskReference | undefined> {
    const found = (await this.all())[repo.toLowerCase()];
    if (!found) return undefined;
    const ageDays = (this.now().getTime() - Date.parse(found.savedAt)) / 86_400_000;
    return ageDays <= REFERENCE_MAX_AGE_DAYS ? found : undefined;
  }

  /** Records a success, replacing the repository's previous reference (written atomically). */
  async save(reference: Omit<TaskReference, 'savedAt'>): Promise<void> {
    const all = await this.all();
    all[reference.repo.toLowerCase()] = { ...reference, savedAt: this.now().toISOString() };
    await mkdir(dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(all, null, 2)}\n`);
    await rename(temp, this.file);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
