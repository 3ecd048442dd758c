import { isUtf8 } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import { parseCore } from '../../../version/parse.ts';
import { sanitize, shown } from '../sanitize.ts';

/** What the gate learnt from `GET {base_url}/api/version`. */
export type VersionProbe =
  | {
      kind: 'document';
      /** The server's `version`, when it is a string (sanitised). */
      version: string | undefined;
      /** The server's `min_cli_version`, always strict `X.Y.Z` here. */
      minCliVersion: string;
      /** Parts of the document that were wrong but did not stop a decision. */
      problems: string[];
      /** The npm package the server says its CLI is published as (a header), when it says so. */
      cliPackage?: string;
    }
  | { kind: 'failed'; reason: string; status?: number };

export interface RawAnswer {
  status: number;
  statusText?: string;
  contentType?: string;
  body: Uint8Array;
}

/**
 * Read the version document (spec section 2) from an HTTP answer. Pure. Anything that is not a
 * 2xx JSON object with a string `min_cli_version` of the form `X.Y.Z` is a failure with a reason a
 * person can act on (the status code, the parse error, the wrong type); the caller warns and runs.
 */
export function readVersionDocument(answer: RawAnswer): VersionProbe {
  if (answer.status < 200 || answer.status > 299) {
    const text = sanitize(answer.statusText || STATUS_CODES[answer.status] || '', 60);
    return {
      kind: 'failed',
      status: answer.status,
      reason: `the server answered ${answer.status}${text ? ` ${text}` : ''}`,
    };
  }
  const parsed = parseJson(answer);
  if ('reason' in parsed) return { kind: 'failed', reason: parsed.reason };
  const doc = parsed.value;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return { kind: 'failed', reason: `the version document is ${shown(doc, 40)}, not a JSON object` };
  }
  const { version, min_cli_version: min } = doc as Record<string, unknown>;
  if (typeof min !== 'string') {
    return { kind: 'failed', reason: `min_cli_version is ${shown(min, 40)}, not a string` };
  }
  // "v1.5.0" is read as 1.5.0, as the origin system's own client does: a server's `v` must not
  // turn the hard gate off (the spec says min_cli_version carries no `v`; tolerate it, say nothing).
  const minimum = /^v\d/.test(min) ? min.slice(1) : min;
  if (!parseCore(minimum))
    return { kind: 'failed', reason: `min_cli_version ${shown(min, 40)} is not of the form X.Y.Z` };
  const problems = typeof version === 'string' ? [] : [`version is ${shown(version, 40)}, not a string`];
  return {
    kind: 'document',
    version: typeof version === 'string' ? sanitize(version) : undefined,
    minCliVersion: minimum,
    problems,
  };
}

function parseJson(answer: RawAnswer): { value: unknown } | { reason: string } {
  const type = answer.contentType ? `; content-type ${sanitize(answer.contentType, 60)}` : '';
  if (answer.body.length === 0) return { reason: `the body is empty${type}` };
  // isUtf8 + toString rather than a fatal TextDecoder, which is slower to set up; a byte-order
  // mark is dropped, as a TextDecoder would.
  if (!isUtf8(answer.body)) return { reason: `the body is not UTF-8 text${type}` };
  const text = Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength)
    .toString('utf8')
    .replace(/^\ufeff/, '');
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    const looksHtml = /^\s*</.test(text) ? ' (it looks like HTML: a proxy, login or error page?)' : '';
    return { reason: `the body is not JSON: ${sanitize((error as Error).message, 80)}${looksHtml}${type}` };
  }
}
