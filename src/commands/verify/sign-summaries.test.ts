import { describe, expect, it } from 'vitest';
import { summaryLine } from './sign-summaries.ts';

const summary = (about: string, roles?: string[]) => ({
  about,
  ...(roles ? { roles } : {}),
  resourceUri: `oci://registry/acme/${about}`,
  result: 'PASSED' as const,
  attached: [{ repository: `acme/${about}`, digest: 'sha256:a', referrer: 'sha256:r' }],
});

describe('summaryLine', () => {
  it.each([
    [summary('api'), undefined, 'verification summary PASSED for api: attached to 1 digest(s)'],
    [
      summary('api', ['api', 'worker', 'scheduler']),
      'vsa.jsonl',
      'verification summary PASSED for api (run as api, worker, scheduler): attached to 1 digest(s), in vsa.jsonl',
    ],
    [
      { ...summary('web', ['web', 'migrate']), result: 'FAILED' as const, attached: [] },
      undefined,
      'verification summary FAILED for web (run as web, migrate): not attached',
    ],
  ])('names the image once with the roles that run it (%#)', (s, out, line) => {
    expect(summaryLine(s, out)).toBe(line);
  });
});
