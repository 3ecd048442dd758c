import { describe, expect, it } from 'vitest';
import { dockerfileFindings } from './dockerfile-findings.ts';
import { parseDockerfile } from './dockerfile-stages.ts';
import { STAMPED_STAGE, stampDockerfile } from './stamp-dockerfile.ts';

const stageOf = (text: string, target?: string) =>
  dockerfileFindings(parseDockerfile(text), { target, buildArgs: {}, versionNames: [] }).stage!;

describe('stampDockerfile', () => {
  it('adds a stage over the target that sets the version variables, lines unchanged above it', () => {
    const text = 'FROM alpine AS api\nRUN true\nFROM scratch AS web\nCOPY a /a\n';
    const out = stampDockerfile(text, stageOf(text, 'api'), {
      SERVICE_VERSION: '2026.7.0',
      ACME_VERSION: '2026.7.0',
    });
    expect(out.target).toBe(STAMPED_STAGE);
    expect(out.text.startsWith(text)).toBe(true);
    const stamped = parseDockerfile(out.text).stages.at(-1)!;
    expect(stamped).toMatchObject({ name: STAMPED_STAGE, from: 'api' });
    expect(stamped.instructions.map((i) => [i.keyword, i.args])).toEqual([
      ['ENV', 'SERVICE_VERSION="2026.7.0" ACME_VERSION="2026.7.0"'],
    ]);
  });

  it('names an unnamed last stage first, on its FROM line', () => {
    const text =
      'FROM golang:1.22 AS build\nRUN go build\nFROM gcr.io/distroless/static\nCOPY --from=build /out /out\n';
    const out = stampDockerfile(text, stageOf(text), { SERVICE_VERSION: 'v1.0.0' });
    const stages = parseDockerfile(out.text).stages;
    expect(stages.map((s) => [s.name, s.from, s.line])).toEqual([
      ['build', 'golang:1.22', 1],
      ['release-target', 'gcr.io/distroless/static', 3],
      [STAMPED_STAGE, 'release-target', 7],
    ]);
  });

  it('escapes what ENV would expand or end early', () => {
    const text = 'FROM scratch AS a\n';
    const out = stampDockerfile(text, stageOf(text, 'a'), { V: 'a"b$c\\d\ne' });
    expect(out.text).toContain('ENV V="a\\"b\\$c\\\\d e"');
  });

  it("drops a # syntax= directive for the engine's own frontend, keeping the line count", () => {
    const text = '# syntax=docker/dockerfile:1\nFROM scratch AS a\nCOPY x /x\n';
    const out = stampDockerfile(text, stageOf(text, 'a'), {}, 'it cannot be fetched');
    expect(parseDockerfile(out.text).syntax).toBeUndefined();
    expect(out.text.split('\n').slice(0, 3)).toEqual([
      "# release build used the engine's own Dockerfile frontend: it cannot be fetched",
      'FROM scratch AS a',
      'COPY x /x',
    ]);
    expect(parseDockerfile(stampDockerfile(text, stageOf(text, 'a'), {}).text).syntax).toBe(
      'docker/dockerfile:1',
    );
  });
});
