import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { applyEdits } from './apply-edits.ts';
import type { ManifestFile, ReleaseTarget } from './gitops-types.ts';
import { parseImageRef, releaseImageOf } from './image-ref.ts';
import { manifestFindings } from './manifest-findings.ts';
import { type ParsedManifest, planBump } from './plan-bump.ts';
import { templateDefaults } from './template-defaults.ts';
import { plainTree } from './tree.ts';

const DIGEST = `sha256:${'c3'.repeat(32)}`;

function target(images: [string[], string][], over: Partial<ReleaseTarget> = {}): ReleaseTarget {
  return {
    tag: 'v2.0.0',
    images: images.map(([artifacts, image]) => ({ artifacts, image })),
    versionVariables: ['SERVICE_VERSION', 'ACME_VERSION'],
    pinDigest: false,
    mode: 'bump',
    ...over,
  };
}

function file(
  path: string,
  kind: ManifestFile['kind'],
  text: string,
  extra: Partial<ManifestFile> = {},
): ParsedManifest {
  return { path, kind, text, docs: parseAllDocuments(text).map((d) => plainTree(d.contents)), ...extra };
}

const chart = (appVersion: string) =>
  file('c/Chart.yaml', 'chart', `apiVersion: v2\nname: c\nappVersion: ${appVersion}\n`);
const values = (text: string, extra: Partial<ManifestFile> = {}) =>
  file('c/values.yaml', 'values', text, { chart: 'c/Chart.yaml', ...extra });
const edits = (plan: ReturnType<typeof planBump>) =>
  plan.edits.map((e) => [e.file, e.path.join('.'), e.want]);

describe('image references', () => {
  it('a port is not a tag; a digest is kept apart', () => {
    expect(parseImageRef('registry:5000/acme/api')).toEqual({ repository: 'registry:5000/acme/api' });
    expect(parseImageRef('registry:5000/acme/api:v1@sha256:ab')).toEqual({
      repository: 'registry:5000/acme/api',
      tag: 'v1',
      digest: 'sha256:ab',
    });
  });
  it('matches the configured image under any registry, and Docker Hub spelled out or not', () => {
    const images = [
      { artifacts: ['api'], image: 'acme/api' },
      { artifacts: ['db'], image: 'postgres' },
    ];
    expect(releaseImageOf('ghcr.io/acme/api', images)?.artifacts).toEqual(['api']);
    expect(releaseImageOf('docker.io/library/postgres', images)?.artifacts).toEqual(['db']);
    expect(releaseImageOf('acme/api-worker', images)).toBeUndefined();
    expect(releaseImageOf('evil.io/notacme/api', images)).toBeUndefined();
  });
});

describe('chart templates', () => {
  it('reads both spellings of default for a repository and an appVersion tag', () => {
    const d = templateDefaults(
      '{{ default "getsentry/sentry" .Values.images.sentry.repository }}:{{ default .Chart.AppVersion .Values.images.sentry.tag }}\n' +
        '{{ .Values.relay.image.repository | default "getsentry/relay" }}:{{ .Values.relay.image.tag | default .Chart.AppVersion }}',
    );
    expect([...d.repositories]).toEqual([
      ['images.sentry', 'getsentry/sentry'],
      ['relay.image', 'getsentry/relay'],
    ]);
    expect([...d.appVersionTags]).toEqual(['images.sentry', 'relay.image']);
  });
});

describe('planBump on values', () => {
  it('authentik shape: empty component tags inherit global.image, whose empty tag is appVersion', () => {
    const v = values(
      'global:\n  image:\n    repository: ghcr.io/goauthentik/server\n    tag: ""\n    digest: ""\n' +
        'server:\n  image:\n    repository: ""\n    tag: ""\n    digest: ""\nworker:\n  image:\n    repository: ""\n    tag: ""\n' +
        'geoip:\n  image:\n    repository: ghcr.io/maxmind/geoipupdate\n    tag: v7.1.1\n',
    );
    const t = target([[['server', 'worker'], 'goauthentik/server']]);
    expect(edits(planBump([v, chart('2026.8.0')], t))).toEqual([['c/Chart.yaml', 'appVersion', 'v2.0.0']]);
    // Pinning writes the digest key beside the tag, not tag@digest.
    const pinned = planBump([v, chart('2026.8.0')], {
      ...t,
      pinDigest: true,
      images: [{ ...t.images[0]!, digest: DIGEST }],
    });
    expect(edits(pinned)).toEqual([
      ['c/values.yaml', 'global.image.digest', DIGEST],
      ['c/Chart.yaml', 'appVersion', 'v2.0.0'],
    ]);
  });

  it('langfuse shape: langfuse.web.image.tag (null) -> langfuse.image.tag, written once for web and worker', () => {
    const v = values(
      'langfuse:\n  image:\n    tag: "3.1.0"\n  web:\n    image:\n      repository: docker.langfuse.com/langfuse/langfuse\n      tag: Null\n' +
        '  worker:\n    image:\n      repository: docker.langfuse.com/langfuse/langfuse-worker\n      tag: Null\n' +
        'postgres:\n  image:\n    repository: postgres\n    tag: "18"\n',
    );
    const plan = planBump(
      [v, chart('"3.1.0"')],
      target([
        [['web'], 'langfuse/langfuse'],
        [['worker'], 'langfuse/langfuse-worker'],
      ]),
    );
    expect(edits(plan)).toEqual([
      ['c/values.yaml', 'langfuse.image.tag', 'v2.0.0'],
      // No image takes its tag from appVersion here: the chart's own v-less spelling is kept.
      ['c/Chart.yaml', 'appVersion', '2.0.0'],
    ]);
    expect(plan.places.find((p) => p.path.join('.') === 'langfuse.image.tag')?.artifacts).toEqual([
      'web',
      'worker',
    ]);
  });

  it('a set global.<app>Version overrides the components and is written; apiVersion and empty ones are not', () => {
    const v = values(
      'global:\n  acmeVersion: v1.0.0\n  otherVersion: ""\n  apiVersion: v1\napi:\n  image:\n    repository: acme/api\n    tag: v1.0.0\n',
    );
    expect(edits(planBump([v, chart('v1.0.0')], target([[['api'], 'acme/api']])))).toEqual([
      ['c/values.yaml', 'api.image.tag', 'v2.0.0'],
      ['c/values.yaml', 'global.acmeVersion', 'v2.0.0'],
      ['c/Chart.yaml', 'appVersion', 'v2.0.0'],
    ]);
  });

  it('a whole reference in a values key (`image: repo:tag`, sidecars) is written in place', () => {
    const v = values(
      'app:\n  image: ghcr.io/acme/api:v1.0.0\nextraContainers:\n  - name: side\n    image: busybox:1\n',
    );
    expect(edits(planBump([v, chart('v1.0.0')], target([[['api'], 'acme/api']])))).toEqual([
      ['c/values.yaml', 'app.image', 'ghcr.io/acme/api:v2.0.0'],
      ['c/Chart.yaml', 'appVersion', 'v2.0.0'],
    ]);
  });

  it('an empty tag and no Chart.yaml: unplaced; a duplicate key in a file holding the release: named', () => {
    const orphan = values('image:\n  repository: acme/api\n  tag: ""\n');
    expect(planBump([orphan], target([[['api'], 'acme/api']])).unplaced[0]?.reason).toMatch(/no Chart.yaml/);
    const twice = [{ key: 'tag', line: 4 }];
    const dup = values('image:\n  repository: acme/api\n  tag: v2.0.0\n', { duplicateKeys: twice });
    expect(planBump([dup, chart('v2.0.0')], target([[['api'], 'acme/api']])).duplicates).toEqual([
      { file: 'c/values.yaml', key: 'tag', line: 4 },
    ]);
    // A file that holds nothing of the release (a subchart's values) is the chart's business.
    const other = { ...values('image:\n  repository: other/thing\n'), path: 'c/charts/x/values.yaml' };
    const clean = values('image:\n  repository: acme/api\n  tag: v1\n');
    const plan = planBump(
      [clean, chart('v1'), { ...other, duplicateKeys: twice }],
      target([[['api'], 'acme/api']]),
    );
    expect(plan.duplicates).toEqual([]);
  });

  it('verify mode compares the tag of a pin whose digest the release does not know; bump refuses it', () => {
    const v = values(`app:\n  image:\n    repository: acme/chat\n    tag: v2.0.0@${DIGEST}\n`);
    const t = target([[['api', 'worker'], 'acme/chat']]);
    expect(planBump([v, chart('v2.0.0')], { ...t, mode: 'verify' })).toMatchObject({
      edits: [],
      unplaced: [],
    });
    expect(planBump([v, chart('v2.0.0')], t).unplaced[0]).toMatchObject({ artifacts: ['api', 'worker'] });
  });
});

describe('declared keys', () => {
  it('a declared key takes an artifact (pinned like a tag) or the version; an absent one is unplaced', () => {
    const v = values('frontend:\n  version: v1.0.0\nrelease: "1.0.0"\n', {
      declared: { 'frontend.version': 'web', release: 'version', 'missing.key': 'web' },
    });
    const plan = planBump([v, chart('v1.0.0')], target([[['web'], 'acme/web']]));
    expect(edits(plan)).toEqual([
      ['c/values.yaml', 'frontend.version', 'v2.0.0'],
      ['c/values.yaml', 'release', 'v2.0.0'],
    ]);
    expect(plan.unplaced).toEqual([
      expect.objectContaining({ reason: 'the declared key missing.key is not in c/values.yaml' }),
    ]);
  });
});

describe('verify findings', () => {
  it('a pin to another digest under the right tag is MANIFEST_DIGEST_MISMATCH, named by file and key', () => {
    const other = `sha256:${'9'.repeat(64)}`;
    const v = values(`app:\n  image:\n    repository: acme/chat\n    tag: v2.0.0@${other}\n`);
    const t = target([[['api'], 'acme/chat']], { mode: 'verify' });
    t.images[0]!.digest = DIGEST;
    const findings = manifestFindings(planBump([v, chart('v2.0.0')], t), 'v2.0.0');
    expect(findings.map((f) => [f.code, f.source, f.severity])).toEqual([
      ['MANIFEST_DIGEST_MISMATCH', 'c/values.yaml app.image.tag', 'drift'],
    ]);
  });
});

describe('planBump on manifests', () => {
  it('kustomize: the base placeholder is the overlay’s to set; env values anywhere, their own spelling kept', () => {
    const base = file(
      'base/api.yaml',
      'kubernetes',
      'apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          image: acme/api:placeholder\n          env:\n            - name: SERVICE_VERSION\n              value: "2.0.0"\n            - name: ACME_VERSION\n              value: v1.9.0\n',
    );
    const baseK = file('base/kustomization.yaml', 'kustomization', 'resources: [api.yaml]\n');
    const overlay = file(
      'prod/kustomization.yaml',
      'kustomization',
      'images:\n  - name: acme/api\n    newTag: v1.9.0\n',
    );
    expect(edits(planBump([base, baseK, overlay], target([[['api'], 'acme/api']])))).toEqual([
      ['base/api.yaml', 'spec.template.spec.containers.0.env.1.value', 'v2.0.0'],
      ['prod/kustomization.yaml', 'images.0.newTag', 'v2.0.0'],
    ]);
  });
  it("Compose: a reference in a variable's default is written inside it; a bare variable is not a place", () => {
    const compose = file(
      'compose.yaml',
      'compose',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Compose variable, not a template
      'services:\n  api:\n    image: ${API_IMAGE:-registry.example.com/acme/api:v1.4.0}\n  worker:\n    image: $WORKER_IMAGE\n',
    );
    const plan = planBump(
      [compose],
      target([
        [['api'], 'acme/api'],
        [['worker'], 'acme/worker'],
      ]),
    );
    expect(edits(plan)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Compose variable, not a template
      ['compose.yaml', 'services.api.image', '${API_IMAGE:-registry.example.com/acme/api:v2.0.0}'],
    ]);
    expect(plan.unplaced.map((u) => u.artifacts)).toEqual([['worker']]);
  });
  it('roles of one image by command: each needs a container running its command, when the files show commands', () => {
    const k8s = file(
      'app.yaml',
      'kubernetes',
      'apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: api\n      image: acme/api:v1\n' +
        '    - name: worker\n      image: acme/api:v1\n      command: [node]\n      args: [worker.js, --queue, a]\n',
    );
    const t = target([[['api', 'worker', 'scheduler'], 'acme/api']]);
    t.images[0]!.commands = { worker: ['node', 'worker.js'], scheduler: ['node', 'cron.js'] };
    const plan = planBump([k8s], t);
    expect(plan.unplaced).toEqual([
      {
        artifacts: ['scheduler'],
        reason: 'no container or service of acme/api runs its command "node cron.js"',
      },
    ]);
    // In a chart the commands are in templates: not checked.
    const v = values('image:\n  repository: acme/api\n  tag: v1\n');
    expect(planBump([v, chart('v1')], t).unplaced).toEqual([]);
  });
  it('Compose commands as Compose runs them: a string, sh -c "…", tini or dumb-init before it', () => {
    // A pnpm/prisma service: the migration runs under `sh -c`, the worker under an init process.
    const compose = file(
      'compose.yaml',
      'compose',
      'services:\n  api:\n    image: acme/app:v1\n' +
        '  migrate:\n    image: acme/app:v1\n    command: sh -c "pnpm exec prisma migrate deploy"\n' +
        '  worker:\n    image: acme/app:v1\n    entrypoint: [/sbin/tini, --]\n    command: node dist/worker.js --queue a\n' +
        "  cron:\n    image: acme/app:v1\n    command: ['dumb-init', '--', '/bin/bash', '-c', 'exec node dist/cron.js']\n",
    );
    const t = target([[['api', 'migrate', 'worker', 'cron'], 'acme/app']]);
    t.images[0]!.commands = {
      migrate: ['pnpm', 'exec', 'prisma', 'migrate', 'deploy'],
      worker: ['node', 'dist/worker.js'],
      cron: ['node', 'dist/cron.js'],
    };
    const plan = planBump([compose], t);
    expect(plan.unplaced).toEqual([]);
    expect(edits(plan).map(([, path]) => path)).toEqual([
      'services.api.image',
      'services.migrate.image',
      'services.worker.image',
      'services.cron.image',
    ]);
    // A role whose command the file runs nowhere is still named.
    t.images[0]!.commands = { ...t.images[0]!.commands, cron: ['node', 'dist/other.js'] };
    expect(planBump([compose], t).unplaced.map((u) => u.artifacts)).toEqual([['cron']]);
  });
  it('an image no file names is unplaced, by every artifact that runs it', () => {
    const plan = planBump([], target([[['api', 'worker'], 'acme/api']]));
    expect(plan.unplaced).toEqual([expect.objectContaining({ artifacts: ['api', 'worker'] })]);
  });
});

describe('applyEdits', () => {
  const place = (path: (string | number)[], want: string, doc = 0) => ({
    file: 'f.yaml',
    doc,
    path,
    kind: 'tag' as const,
    artifacts: [],
    current: null,
    want,
  });
  it('changes only the edited values, each in its own quoting, comments and folding kept', () => {
    const text =
      '# head\ndescription: a very long line that a YAML printer would fold at eighty columns, which we must never do\n' +
      'a: \'v1\' # keep\nb: "v1"\nc: v1\nd:\ne: Null\nf: 1.9\nlist:\n- x\n---\nkind: Second\nimage: acme/api:v1\n';
    const out = applyEdits(text, [
      place(['a'], 'v2'),
      place(['b'], 'v2'),
      place(['c'], 'v2'),
      place(['d'], 'v2'),
      place(['e'], 'v2'),
      place(['f'], '1.10'),
      place(['image'], 'acme/api:v2', 1),
    ]);
    expect(out.text).toBe(
      '# head\ndescription: a very long line that a YAML printer would fold at eighty columns, which we must never do\n' +
        'a: \'v2\' # keep\nb: "v2"\nc: v2\nd: v2\ne: v2\nf: "1.10"\nlist:\n- x\n---\nkind: Second\nimage: acme/api:v2\n',
    );
    expect(out.hunks).toHaveLength(7);
  });
  it('adds a missing key at the indent of its siblings', () => {
    const text = 'images:\n  - name: acme/web\n    newName: r/acme/web\n  - name: x\n';
    expect(applyEdits(text, [place(['images', 0, 'newTag'], 'v2')]).text).toBe(
      'images:\n  - name: acme/web\n    newName: r/acme/web\n    newTag: v2\n  - name: x\n',
    );
  });
});

describe('the spelling of a release tag', () => {
  const compose = (tag: string) =>
    file(
      'deploy/compose.yml',
      'compose',
      `services:\n  api:\n    image: reg.example/acme/api:${tag}\n  web:\n    image: reg.example/acme/web:${tag}\n`,
    );
  const images: [string[], string][] = [
    [['api'], 'acme/api'],
    [['web'], 'acme/web'],
  ];

  it('exact (the record spells it): every image place gets the pushed tag', () => {
    const plan = planBump([compose('2026.6.0')], target(images, { tag: '2026.7.0', pinDigest: false }));
    expect(edits(plan).map(([, , want]) => want)).toEqual([
      'reg.example/acme/api:2026.7.0',
      'reg.example/acme/web:2026.7.0',
    ]);
  });

  it('as deployed (no record): each place keeps the spelling it has', () => {
    const calver = planBump(
      [compose('2026.6.0')],
      target(images, { spelling: 'as-deployed', tag: 'v2026.7.0' }),
    );
    expect(edits(calver).map(([, , want]) => want)).toEqual([
      'reg.example/acme/api:2026.7.0',
      'reg.example/acme/web:2026.7.0',
    ]);
    const v = planBump([compose('v1.3.0')], target(images, { spelling: 'as-deployed', tag: '1.4.0' }));
    expect(edits(v).map(([, , want]) => want)).toEqual([
      'reg.example/acme/api:v1.4.0',
      'reg.example/acme/web:v1.4.0',
    ]);
  });
});

describe('a one-shot job of the API image', () => {
  // A migration as a Compose service that runs once, and as a Kubernetes Job (a pre-install hook
  // of a chart's own or a plain manifest): its image is the release's like every other role's.
  const t = () => {
    const out = target([[['api', 'migrate'], 'acme/api']]);
    out.images[0]!.commands = { migrate: ['node', 'migrate.js'] };
    return out;
  };
  it('rewrites the job in a compose file and in a Kubernetes Job, and finds no role unplaced', () => {
    const compose = file(
      'compose.yaml',
      'compose',
      'services:\n  migrate:\n    image: acme/api:v1\n    command: ["node", "migrate.js"]\n    restart: "no"\n' +
        '  api:\n    image: acme/api:v1\n    depends_on:\n      migrate:\n        condition: service_completed_successfully\n',
    );
    const job = file(
      'migrate-job.yaml',
      'kubernetes',
      'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  template:\n    spec:\n' +
        '      restartPolicy: Never\n      containers:\n        - name: migrate\n          image: acme/api:v1\n          command: [node, migrate.js]\n',
    );
    const plan = planBump([compose, job], t());
    expect(edits(plan)).toEqual([
      ['compose.yaml', 'services.migrate.image', 'acme/api:v2.0.0'],
      ['compose.yaml', 'services.api.image', 'acme/api:v2.0.0'],
      ['migrate-job.yaml', 'spec.template.spec.containers.0.image', 'acme/api:v2.0.0'],
    ]);
    expect(plan.unplaced).toEqual([]);
  });
  it('says so when no container runs the job', () => {
    const compose = file(
      'compose.yaml',
      'compose',
      'services:\n  api:\n    image: acme/api:v1\n    command: [node, api.js]\n',
    );
    expect(planBump([compose], t()).unplaced).toEqual([
      {
        artifacts: ['migrate'],
        reason: 'no container or service of acme/api runs its command "node migrate.js"',
      },
    ]);
  });
});
