import { describe, expect, it } from 'vitest';
import { applyDotenvEdits, parseDotenv } from './dotenv.ts';

describe('.env beside a Compose file', () => {
  it('reads NAME=value as Compose does (quotes, export, the last one wins) and writes in the same quoting', () => {
    const text =
      '# images\nexport API_IMAGE="acme/api:v1" # pinned\nWEB=\'acme/web:v1\'\nWEB=acme/web:v2\nSECRET=s3cr3t\n';
    expect(parseDotenv(text)).toEqual({ API_IMAGE: 'acme/api:v1', WEB: 'acme/web:v2', SECRET: 's3cr3t' });
    const edit = (name: string, want: string) => ({
      file: '.env',
      doc: 0,
      path: [name],
      kind: 'reference' as const,
      artifacts: [],
      current: null,
      want,
    });
    const out = applyDotenvEdits(text, [edit('API_IMAGE', 'acme/api:v3'), edit('WEB', 'acme/web:v3')]);
    expect(out.text).toBe(
      '# images\nexport API_IMAGE="acme/api:v3" # pinned\nWEB=\'acme/web:v1\'\nWEB=acme/web:v3\nSECRET=s3cr3t\n',
    );
    expect(out.hunks.map((h) => h.line)).toEqual([2, 4]);
  });
});
