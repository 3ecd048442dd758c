import { describe, expect, it } from 'vitest';
import { probeDeployment } from './probe-deployment.ts';

// Port 9 (discard) on loopback: nothing listens, the API probe fails at once.
const target = { url: 'http://127.0.0.1:9' };
const options = { env: {}, cwd: process.cwd(), timeoutMs: 1_000, workerImage: 'acme/worker' };

describe('probeDeployment: the CLI row', () => {
  it('says the CLI was left out only when the config declares one', async () => {
    const declared = await probeDeployment(target, { ...options, cli: false, cliProgram: 'acme' });
    expect(declared.notChecked.map((n) => n.name)).toContain('cli');
    expect(declared.probed).not.toContain('cli');
  });

  it('has no CLI row at all for a service without a CLI, left out or not', async () => {
    for (const cli of [false, true]) {
      const none = await probeDeployment(target, { ...options, cli });
      expect(none.notChecked.map((n) => n.name)).not.toContain('cli');
      expect(none.probed).not.toContain('cli');
    }
  });
});

describe('probeDeployment: the web row', () => {
  it('says the web was not read when the service has one, and has no row when it has none', async () => {
    const withWeb = await probeDeployment(target, { ...options, cli: false });
    expect(withWeb.notChecked.map((n) => n.name)).toContain('web');
    const without = await probeDeployment(target, { ...options, cli: false, web: false });
    expect(without.notChecked.map((n) => n.name)).not.toContain('web');
    expect(without.probed).not.toContain('web');
  });

  it('with several web clients, one row each: read at its own URL, or named as not read', async () => {
    const webs = ['app', 'admin'];
    const none = await probeDeployment(target, { ...options, cli: false, webs });
    expect(none.notChecked.filter((n) => n.name === 'web')).toEqual([
      { name: 'web', role: 'app', reason: 'pass --web-url app=<url> to read it' },
      { name: 'web', role: 'admin', reason: 'pass --web-url admin=<url> to read it' },
    ]);
    const one = await probeDeployment(
      { ...target, webUrls: { admin: 'http://127.0.0.1:9/admin' } },
      { ...options, cli: false, webs },
    );
    expect(one.probed).toContain('web');
    expect(
      one.results.filter((r) => r.name === 'web').map((r) => [r.role, r.source, r.error !== undefined]),
    ).toEqual([['admin', 'http://127.0.0.1:9/admin/version.json', true]]);
    expect(one.notChecked.filter((n) => n.name === 'web').map((n) => n.role)).toEqual(['app']);
  });
});
