import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_HEADERS, pathOf, sendMethodNotAllowed, sendNotFound } from './json-response.ts';

/** `next` of Express/Connect: called for requests the handler does not own. */
export type NextFunction = (error?: unknown) => void;

/** A `node:http` request listener that also works as Express/Connect middleware. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, next?: NextFunction) => void;

/**
 * One fixed JSON document at one path. The bytes and headers are computed once, here, so a request
 * costs a string compare and a write: this sits on health-check and CLI-probe hot paths.
 *
 * GET answers the document, HEAD the same headers without a body, other methods 405 with `Allow`.
 * Other paths go to `next` when there is one (middleware), else 404 JSON (plain handler).
 */
export function createJsonEndpoint(path: string, document: unknown): RequestHandler {
  const body = Buffer.from(JSON.stringify(document));
  // writeHead with an object merges headers set earlier with setHeader (graceful shutdown's
  // `Connection: close`), which the flat-array form would not.
  const headers = { ...JSON_HEADERS, 'Content-Length': String(body.length) };
  return (req, res, next) => {
    const url = req.url ?? '/';
    if (url !== path && pathOf(url) !== path) {
      if (next) next();
      else sendNotFound(res);
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(200, headers);
      res.end(body);
    } else if (req.method === 'HEAD') {
      res.writeHead(200, headers);
      res.end();
    } else {
      sendMethodNotAllowed(res);
    }
  };
}
