import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { startLocalNpmRegistry } from '../../cli-package/local-npm-registry.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';

/**
 * `--publish`: a Verdaccio of our own on loopback (Verdaccio must be installed: it is a
 * devDependency, looked up at run time), and npm's user config for every command pointing at it
 * with a token. The repository's config gets `artifacts.cli.publish: true`, so each promotion
 * publishes the CLI package as a real CI job would.
 */
export const rehearseNpmRegistryStep: Step<RehearseContext> = {
  title: 'Start a local npm registry',
  skip: (ctx) => (ctx.publish ? false : 'pass --publish to rehearse the CLI package'),
  async run(ctx) {
    const user = { name: 'rehearsal', password: `rehearsal-${process.pid}-${Date.now()}` };
    ctx.npmRegistry = await startLocalNpmRegistry({ dir: join(ctx.workspace!, 'npm-registry'), user });
    const npmrc = join(ctx.workspace!, 'npmrc');
    const authority = ctx.npmRegistry.url.replace(/^https?:/, '');
    await writeFile(
      npmrc,
      `registry=${ctx.npmRegistry.url}\n${authority}:_authToken=${ctx.npmRegistry.token}\n`,
      {
        mode: 0o600,
      },
    );
    // Outside the repository, so the tree stays clean for the rc and the release.
    ctx.releaseEnv!['npm_config_userconfig'] = npmrc;
    ctx.notes[this.title] = `Verdaccio on ${ctx.npmRegistry.url} (htpasswd, no uplinks)`;
  },
};

/**
 * After the release: the dist-tags are the table's (`latest` = the release, `next` = the rc), and
 * `npm install -g service-cli@<release>` from the registry gives a svc printing that version.
 */
export const rehearsePackageStep: Step<RehearseContext> = {
  title: 'Install the released CLI package from the npm registry',
  skip: (ctx) => (ctx.publish ? false : 'pass --publish to rehearse the CLI package'),
  async run(ctx) {
    const env = { ...ctx.releaseEnv!, npm_config_update_notifier: 'false' };
    const view = await execa('npm', ['view', 'service-cli', 'dist-tags', '--json', '--prefer-online'], {
      env,
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    const tags = JSON.parse(view.stdout || '{}') as Record<string, string>;
    const release = REHEARSAL.releaseTag.slice(1);
    const rc = REHEARSAL.rcTag.slice(1);
    if (tags['latest'] !== release || tags['next'] !== rc)
      throw new RuleError(
        'REHEARSAL_DIST_TAGS',
        `service-cli dist-tags are ${JSON.stringify(tags)}: expected latest ${release} and next ${rc}`,
      );
    const prefix = join(ctx.workspace!, 'package-install');
    const installed = await execa(
      'npm',
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', `service-cli@${release}`],
      { env, extendEnv: false, reject: false, timeout: 120_000 },
    );
    if (installed.exitCode !== 0)
      throw new RuleError(
        'REHEARSAL_PACKAGE_INSTALL',
        `npm install -g service-cli@${release} failed: ${installed.stderr.slice(-400)}`,
      );
    const printed = await execa(join(prefix, 'bin', 'svc'), ['--version'], {
      env,
      extendEnv: false,
      reject: false,
    });
    if (printed.stdout.trim() !== `svc ${REHEARSAL.releaseTag}`)
      throw new RuleError(
        'REHEARSAL_PACKAGE_VERSION',
        `the installed svc printed "${printed.stdout.trim()}"`,
      );
    ctx.notes[this.title] =
      `dist-tags latest=${tags['latest']} next=${tags['next']}${tags['dev'] ? ` dev=${tags['dev']}` : ''}; npm install -g service-cli@${release} -> ${printed.stdout.trim()}`;
  },
};
