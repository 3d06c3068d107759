import { resolve } from 'node:path';
import { loadRecordedRun } from '../replay/recorded-run.js';
import { loadModelScript } from '../scripted/model-script.js';
import type { CannedResponse } from './canned-response.js';

/** The answers a `scripted:` or `replay:` model gives, read from its file. */
export interface CannedSource {
  readonly responses: CannedResponse[];
  readonly file: string;
  readonly kind: 'scripted' | 'replay';
}

/**
 * Reads the file a `scripted:` or `replay:` model names (`modelId`, relative to `fileRoot`), so a
 * bad file fails here with its position. No LangChain: a start-up check uses it without loading
 * a chat model.
 */
export function readCannedSource(
  kind: CannedSource['kind'],
  modelId: string,
  fileRoot = '.',
): CannedSource {
  const file = resolve(fileRoot, modelId);
  const responses = kind === 'scripted' ? loadModelScript(file) : loadRecordedRun(file);
  return { responses, file, kind };
}
