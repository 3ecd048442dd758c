import type { ServerResponse } from 'node:http';

/** Headers every JSON answer of the reference servers carries: never cached, never sniffed. */
export const JSON_HEADERS = {
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
} as const;

/** Send a JSON document (no body for HEAD). */
export function sendJson(
  res: ServerResponse,
  status: number,
  document: unknown,
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(JSON.stringify(document));
  res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': String(body.length), ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** `{"error": message}`: the one error shape of the reference servers; never a stack trace. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: message }, headers);
}

/** 404 without echoing the path back (nothing the client sent is reflected). */
export function sendNotFound(res: ServerResponse): void {
  sendError(res, 404, 'not found');
}

/** 405 for a path that only answers GET and HEAD. */
export function sendMethodNotAllowed(res: ServerResponse): void {
  sendError(res, 405, `method ${res.req.method} not allowed; use GET or HEAD`, { Allow: 'GET, HEAD' });
}

/** The path of a request URL without query or fragment, cheaply (no URL object on the hot path). */
export function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  const end = q === -1 ? h : h === -1 ? q : Math.min(q, h);
  return end === -1 ? url : url.slice(0, end);
}
