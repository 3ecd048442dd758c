import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { describeFailure } from './bounded-get.ts';

/**
 * The status a URL answers a HEAD with (no redirect followed, no body read), within a deadline;
 * rejects with why it could not be asked (`host name not found`, `connection refused`, `no answer
 * within 6000 ms`). For a dry run asking whether a build could fetch a file, not for the file.
 */
export async function headStatus(url: string, timeoutMs: number): Promise<number> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  try {
    return await new Promise<number>((resolve, reject) => {
      const req = request(target, { method: 'HEAD', signal: deadline, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  } catch (error) {
    throw new Error(describeFailure(error, timeoutMs, deadline), { cause: error });
  }
}
