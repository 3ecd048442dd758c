import { isOrdered } from '../../../version/kinds.ts';
import { satisfiesMinimum } from '../../../version/minimum.ts';
import { parseVersion } from '../../../version/parse.ts';
import { selectApi, selectTimeout } from '../config/select-api.ts';
import type { SvcContext } from '../context.ts';
import { pinnedInstallCommand, upgradeCommand } from '../gate/decide.ts';
import { probeVersion } from '../gate/probe.ts';
import { installPrefixOf, runningScript } from '../install-prefix.ts';
import { installSourceOf } from '../install-source.ts';
import { out, outJson } from '../output.ts';
import { describeSvcs, findSvcOnPath, olderComesFirst } from '../path-scan.ts';
import { type Finding, findingsAboutApi } from './doctor-findings.ts';

/**
 * `svc doctor`: the spec's troubleshooting rows that can be seen from the CLI's side, each with its
 * fix. Exit 1 when anything is found. Not gated: a CLI below the minimum is one of its findings.
 */
export async function runDoctor(ctx: SvcContext): Promise<number> {
  const api = selectApi(ctx.url, ctx.env, ctx.config);
  const base = api?.baseUrl ?? '<api_base_url>';
  const findings: Finding[] = [];

  const own = parseVersion(ctx.cliVersion);
  if (!isOrdered(own)) {
    findings.push({
      id: 'cli-version-unknown',
      problem: `svc --version prints "${ctx.cliVersion}": this svc has no baked-in release version (installed from a development checkout)`,
      // svc update replaces only an npm-installed svc; from a checkout it refuses, so say what works.
      fix: installPrefixOf(runningScript())
        ? `reinstall a release: svc update --url ${base}`
        : `install a release: ${upgradeCommand(base)}`,
    });
  }

  const [probe, onPath] = await Promise.all([
    api
      ? probeVersion(api.baseUrl, { timeoutMs: selectTimeout(ctx.env), cliVersion: ctx.cliVersion })
      : undefined,
    findSvcOnPath(ctx.env),
  ]);
  findings.push(...findingsAboutApi(api?.baseUrl, probe, ctx.configPath));

  if (
    probe?.kind === 'document' &&
    satisfiesMinimum(ctx.cliVersion, probe.minCliVersion).verdict === 'fail'
  ) {
    findings.push({
      id: 'cli-below-minimum',
      problem: `svc ${ctx.cliVersion} is below the API's minimum CLI version ${probe.minCliVersion}: every gated command is refused`,
      fix: `svc update --url ${base}   (or: ${upgradeCommand(base)})`,
    });
  }

  if (onPath.length >= 2) {
    const older = olderComesFirst(onPath);
    findings.push({
      id: 'several-svc-on-path',
      problem: `${onPath.length} svc executables are on PATH${older ? ', and an older one comes first' : ''}; the first one is what runs`,
      fix: 'keep one: remove the others (rm <path>, or npm uninstall -g --prefix <prefix> service-cli)',
      details: describeSvcs(onPath, runningScript()),
    });
  }

  // How this svc was installed, and the pinned command for the server's version.
  const installed = installSourceOf(runningScript());
  const pinned =
    probe?.kind === 'document' ? pinnedInstallCommand(probe.cliPackage, probe.version) : undefined;

  if (ctx.json) {
    outJson({
      ok: findings.length === 0,
      cli: ctx.cliVersion,
      api: api
        ? {
            url: api.baseUrl,
            source: api.source,
            ...(probe?.kind === 'document'
              ? { version: probe.version ?? null, min_cli_version: probe.minCliVersion }
              : {}),
          }
        : null,
      installed: { from: installed.kind, text: installed.text },
      pinned_install: pinned ?? null,
      svc_on_path: onPath.map(({ path, version }) => ({ path, version: version ?? null })),
      findings,
    });
    return findings.length ? 1 : 0;
  }
  out(`svc ${ctx.cliVersion}: ${installed.text}`);
  if (pinned) out(`pinned to the server's version: ${pinned}`);
  if (findings.length === 0) {
    const server =
      probe?.kind === 'document'
        ? `, API ${probe.version} at ${base} (minimum CLI ${probe.minCliVersion})`
        : '';
    out(`no problems found: svc ${ctx.cliVersion}${server}`);
    return 0;
  }
  out(`${findings.length} problem${findings.length === 1 ? '' : 's'} found:`);
  for (const finding of findings) {
    out(`\n- ${finding.problem}`);
    for (const line of finding.details ?? []) out(`    ${line}`);
    out(`  fix: ${finding.fix}`);
  }
  return 1;
}
