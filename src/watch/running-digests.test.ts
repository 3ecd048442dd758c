import { describe, expect, it } from 'vitest';
import { runningDigests } from './running-digests.ts';

describe('runningDigests', () => {
  it.each([
    ['one image, one role', [{ name: 'api', digest: 'sha256:a' }], { api: 'sha256:a' }],
    [
      'one image, three roles: each role by its own name, its own digest',
      [
        { name: 'api', digest: 'sha256:a' },
        { name: 'worker', digest: 'sha256:a' },
        { name: 'worker', role: 'scheduler', digest: 'sha256:old' },
      ],
      { api: 'sha256:a', worker: 'sha256:a', scheduler: 'sha256:old' },
    ],
    [
      'two images, one shared: the first reading of each wins, an unread one is left out',
      [
        { name: 'api', digest: 'sha256:a' },
        { name: 'worker', digest: 'sha256:w' },
        { name: 'worker', digest: 'sha256:w2' },
        { name: 'worker', role: 'scheduler' },
      ],
      { api: 'sha256:a', worker: 'sha256:w' },
    ],
    [
      'a web client and a job sharing an image',
      [
        { name: 'web', digest: 'sha256:web' },
        { name: 'web', role: 'admin', digest: 'sha256:adm' },
        { name: 'job', role: 'migrate', digest: 'sha256:web' },
      ],
      { web: 'sha256:web', admin: 'sha256:adm', migrate: 'sha256:web' },
    ],
  ])('%s', (_, readings, expected) => {
    expect(runningDigests(readings)).toEqual(expected);
  });
});
