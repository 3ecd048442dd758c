import { describe, expect, it } from 'vitest';
import { formatBuildFailure, readBuildFailure } from './build-failure.ts';

// Plain progress output as the builders print it (shapes copied from real failures).
const DOCKER_20_10 = `#5 [base 2/2] RUN echo "arch=amd64" > /arch.txt
#5 sha256:3f88f157e000d0053aeb1e42dc626684481a281e36809b68a2194b852f6be1e8
#5 ERROR: executor failed running [/bin/sh -c echo "arch=$TARGETARCH" > /arch.txt]: network bridge not found
------
 > [base 2/2] RUN echo "arch=amd64" > /arch.txt:
------
executor failed running [/bin/sh -c echo "arch=$TARGETARCH" > /arch.txt]: network bridge not found`;

const BUILDX = `#8 [build 3/4] RUN case "arm64" in amd64) ;; *) echo "Unsupported arch: arm64"; exit 1 ;; esac
#8 0.101 preparing
#8 0.204 Unsupported arch: arm64
#8 ERROR: process "/bin/sh -c case \\"$TARGETARCH\\" in amd64) ;; *) echo \\"Unsupported arch: $TARGETARCH\\"; exit 1 ;; esac" did not complete successfully: exit code: 1
#9 [web 1/2] COPY . .
#9 CANCELED
------
 > [build 3/4] RUN case ...:
0.204 Unsupported arch: arm64
------
Dockerfile:12
--------------------
  11 |     ARG TARGETARCH
  12 | >>> RUN case "$TARGETARCH" in amd64) ;; *) echo "Unsupported arch: $TARGETARCH"; exit 1 ;; esac
--------------------
ERROR: failed to solve: process "/bin/sh -c case ..." did not complete successfully: exit code: 1`;

describe('readBuildFailure', () => {
  it("quotes the step BuildKit names and its error (docker 20.10's own BuildKit)", () => {
    expect(readBuildFailure(DOCKER_20_10)).toEqual({
      step: '[base 2/2] RUN echo "arch=amd64" > /arch.txt',
      error:
        'executor failed running [/bin/sh -c echo "arch=$TARGETARCH" > /arch.txt]: network bridge not found',
      output: [],
    });
  });

  it("quotes the failing command's last output lines, not another step's (buildx)", () => {
    const failure = readBuildFailure(BUILDX);
    expect(failure.step).toBe(
      '[build 3/4] RUN case "arm64" in amd64) ;; *) echo "Unsupported arch: arm64"; exit 1 ;; esac',
    );
    expect(failure.error).toMatch(/^process ".*" did not complete successfully: exit code: 1$/);
    expect(failure.output).toEqual(['preparing', 'Unsupported arch: arm64']);
    expect(formatBuildFailure(failure)).toMatch(/^failed step: \[build 3\/4\] RUN case/);
    expect(formatBuildFailure(failure)).toContain(
      'its last output:\n  | preparing\n  | Unsupported arch: arm64',
    );
  });

  it('keeps the last 12 output lines, each bounded, control characters escaped', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `#3 ${i}.000 line ${i}${i === 39 ? '\u001b[2J' : ''}`);
    const failure = readBuildFailure(
      `#3 [a 1/1] RUN x\n${lines.join('\n')}\n#3 ${'9.9 '}${'y'.repeat(5000)}\n#3 ERROR: boom`,
    );
    expect(failure.output).toHaveLength(12);
    expect(failure.output.at(-2)).toBe('line 39\\u001b[2J');
    expect(failure.output.at(-1)!.length).toBeLessThan(300);
  });

  it("without a failed step: the builder's own last error line (a base it could not resolve)", () => {
    const log = `#3 [internal] load metadata for docker.io/library/node:22\n#3 DONE 0.0s\nerror: failed to solve: node:22: not found`;
    // The metadata step did not fail as a step: the closing error says what did.
    expect(readBuildFailure(log)).toEqual({
      step: undefined,
      error: 'failed to solve: node:22: not found',
      output: [],
    });
    expect(
      readBuildFailure('Error response from daemon: dockerfile parse error line 3: unknown instruction: FORM')
        .error,
    ).toBe('Error response from daemon: dockerfile parse error line 3: unknown instruction: FORM');
  });
});
