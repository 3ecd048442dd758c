import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../config/validate.ts';
import { readSwarmStep } from './read-swarm-step.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

// A second web client (an admin dashboard) is an image of its own: the upgrade has a target for
// the web role's image only, so naming the admin's service is refused before the engine is asked
// anything (the context has no engine: a call to it would fail otherwise).
describe('readSwarmStep: a second web client', () => {
  it('refuses to move it to the first web client digest (exit 2, naming both images)', async () => {
    const config = validateConfig(
      {
        artifacts: {
          api: { image: 'acme-api', context: 'api' },
          worker: { image: 'acme-api', command: ['worker'] },
          web: { image: 'acme-web', context: 'web' },
          admin: { role: 'web', image: 'acme-admin', context: 'admin' },
        },
      },
      'test',
    );
    const ctx = {
      config,
      serviceNames: { api: 'acme_api', worker: 'acme_worker', web: 'acme_web' },
      moreServices: { admin: 'acme_admin' },
    } as unknown as SwarmUpgradeContext;
    const error = await Promise.resolve(readSwarmStep.run(ctx, { progress: () => {} } as never)).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'UPGRADE_SECOND_WEB',
      exitCode: 2,
      message:
        'artifacts.admin is a web client of its own image (acme-admin), not acme-web: release upgrade moves one web client',
    });
  });
});
