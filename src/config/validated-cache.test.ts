import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from './validate.ts';
import { plainJson, validatedCache } from './validated-cache.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'validated-cache-'));
  dirs.push(dir);
  return join(dir, 'validated');
};

describe('validatedCache', () => {
  it('gives back what the validator accepted, for the same raw config and schema only', async () => {
    const dir = scratch();
    const raw = { registry: 'localhost:5000/acme', artifacts: { scheduler: { image: 'service-scheduler' } } };
    const config = validateConfig(raw, 'test');
    const cache = validatedCache(dir, 'schema-1');
    expect(cache.get(raw)).toBeUndefined();
    await cache.put(raw, config);
    expect(cache.get(structuredClone(raw))).toStrictEqual(config);
    expect(cache.get({ ...raw, registry: 'localhost:5000/other' })).toBeUndefined();
    expect(validatedCache(dir, 'schema-2').get(raw)).toBeUndefined();
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('keeps nothing JSON cannot hold exactly', async () => {
    const dir = scratch();
    const cache = validatedCache(dir, 'schema-1');
    const withFunction = { registry: 'localhost:5000/acme', hook: () => 1 };
    await cache.put(withFunction, { registry: 'x' } as never);
    await cache.put({ registry: 'x' }, { registry: 'x', when: new Date(0) } as never);
    expect(cache.get(withFunction)).toBeUndefined();
    expect(cache.get({ registry: 'x' })).toBeUndefined();
  });
});

describe('plainJson', () => {
  it('is the JSON text only when reading it back gives the same value', () => {
    expect(plainJson({ a: [1, 'b', null, { c: true }] })).toBe('{"a":[1,"b",null,{"c":true}]}');
    expect(plainJson({ a: undefined })).toBeUndefined();
    expect(plainJson({ a: /x/ })).toBeUndefined();
    expect(plainJson({ a: 1n })).toBeUndefined();
    expect(plainJson(undefined)).toBeUndefined();
  });

  it('holds the validated defaults exactly (the release bundle embeds them)', () => {
    expect(plainJson(validateConfig({}, 'defaults'))).toBeDefined();
  });
});
