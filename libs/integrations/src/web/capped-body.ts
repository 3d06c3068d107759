import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** A body read up to a limit. */
export interface CappedBody {
  body: Buffer;
  /** True when there was more than the limit (the rest was not read). */
  truncated: boolean;
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  // Errors of either side end the other; the reader below sees them on the decoder.
  return pipeline(response, decoder, () => undefined);
}

/**
 * Reads a response body, decompressed (gzip, deflate, br), keeping at most `maxBytes` of it: the
 * limit applies after decompression, so a small compressed bomb cannot fill memory. Stops reading
 * (and closes the connection) as soon as the limit is passed.
 */
export async function readCapped(response: IncomingMessage, maxBytes: number): Promise<CappedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const stream = decoded(response);
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      if (size + bytes.length > maxBytes) {
        chunks.push(bytes.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(bytes);
      size += bytes.length;
    }
  } finally {
    if (truncated) response.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}
