import { describe, expect, it } from 'vitest';
import { readVersionDocument } from './version-document.ts';

const answer = (body: string, status = 200, contentType = 'application/json') => ({
  status,
  contentType,
  body: Buffer.from(body),
});

describe('readVersionDocument', () => {
  it('reads the two fields', () => {
    expect(readVersionDocument(answer('{"version":"v1.2.0","min_cli_version":"1.0.0"}'))).toEqual({
      kind: 'document',
      version: 'v1.2.0',
      minCliVersion: '1.0.0',
      problems: [],
    });
  });

  it.each([
    [answer('', 403, 'text/html'), /answered 403 Forbidden/],
    [answer('', 503), /answered 503 Service Unavailable/],
    [answer(''), /body is empty/],
    [answer('<html>login</html>', 200, 'text/html'), /not JSON.*looks like HTML.*text\/html/],
    [answer('[1,2]'), /an array, not a JSON object/],
    [answer('"1.0.0"'), /not a JSON object/],
    [answer('{"version":"v1","min_cli_version":1}'), /min_cli_version is number 1, not a string/],
    [answer('{"version":"v1"}'), /min_cli_version is missing/],
    [answer('{"version":"v1","min_cli_version":"vv1.0.0"}'), /"vv1.0.0" is not of the form X.Y.Z/],
    [answer('{"version":"v1","min_cli_version":"V1.0.0"}'), /"V1.0.0" is not of the form X.Y.Z/],
    [answer('{"version":"v1","min_cli_version":"1.0"}'), /not of the form X.Y.Z/],
    [{ status: 200, body: Buffer.from([0xff, 0xfe, 0x00]) }, /not UTF-8/],
  ])('fails with a reason: %#', (input, reason) => {
    const probe = readVersionDocument(input);
    expect(probe.kind).toBe('failed');
    expect(probe.kind === 'failed' && probe.reason).toMatch(reason);
  });

  it('keeps a valid minimum when the version field has the wrong type, noting the problem', () => {
    const probe = readVersionDocument(answer('{"version":7,"min_cli_version":"1.0.0"}'));
    expect(probe).toMatchObject({
      kind: 'document',
      version: undefined,
      problems: ['version is number 7, not a string'],
    });
  });

  it('sanitises what it repeats from the server', () => {
    const probe = readVersionDocument(
      answer('{"version":"v1\\u001b[2J\\u0007","min_cli_version":"1\\u001b]0;x\\u0007"}'),
    );
    expect(probe.kind === 'failed' && probe.reason).not.toMatch(/[\u0000-\u001f]/);
    const ok = readVersionDocument(answer('{"version":"v1\\u001b[2J","min_cli_version":"1.0.0"}'));
    expect(ok.kind === 'document' && ok.version).toBe('v1[2J');
  });

  it('reads a minimum sent with a leading v ("v1.5.0") as 1.5.0', () => {
    expect(readVersionDocument(answer('{"version":"v2.0.0","min_cli_version":"v1.5.0"}'))).toMatchObject({
      kind: 'document',
      minCliVersion: '1.5.0',
      problems: [],
    });
  });
});
