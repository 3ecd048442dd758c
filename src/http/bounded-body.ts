/**
 * Read a body of at most `maxBytes` from a stream of chunks (a fetch body, an IncomingMessage, a
 * file), cut the moment it passes the limit: a peer that sends 60 MB or never stops costs at most
 * the limit in memory, never the whole body. The one bounded reader of the project: verify's
 * probes and the registry client both read through it.
 */
export async function readAtMost(chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  // Leaving the loop early (the throw) cancels the source: a fetch body is released, a stream destroyed.
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > maxBytes) throw new BodyTooLargeError(maxBytes);
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }
  return Buffer.concat(parts, total);
}

/** The body passed the limit and was cut there; `declared` is its Content-Length when one was sent. */
export class BodyTooLargeError extends Error {
  constructor(
    readonly maxBytes: number,
    readonly declared?: number,
  ) {
    super(
      declared === undefined
        ? `response body is larger than the ${maxBytes}-byte limit`
        : `response body of ${declared} bytes is larger than the ${maxBytes}-byte limit`,
    );
    this.name = 'BodyTooLargeError';
  }
}
