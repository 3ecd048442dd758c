import { replaceVersionStrings } from './version-strings.ts';

/** One file of the comparison: how the rebuild's copy relates to the rc's, and why. */
export interface FileDifference {
  /** The path in the rc (the rebuild's path when only the rebuild has it). */
  path: string;
  /** The rebuild's path when the name itself carried the version. */
  renamed?: string;
  kind: 'version-strings' | 'code';
  reason: string;
}

export interface RebuildComparison {
  /** Every file of both sides matched: byte-identical, or identical modulo version strings. */
  equal: boolean;
  /** Files byte-identical to the rc's (same name). */
  identical: string[];
  /** Files that differ from the rc's in version strings only (content or name): shipped as rebuilt. */
  versionOnly: FileDifference[];
  /** Files that differ in more than version strings, or exist on one side only: the refusal. */
  code: FileDifference[];
}

/**
 * Compare the rc's files with a rebuild of the rc's commit for `release`: the proof that the
 * release is the rc's code. Each rc file must have a rebuilt counterpart (its name with the rc's
 * version strings replaced by the release's) that is byte-identical, or identical once the rc's
 * version strings (tag, SemVer, PEP 440) in it are replaced; any other difference, and any file
 * only one side has, is code. Bytes are compared as latin1 text: version strings are ASCII, and
 * latin1 maps every byte to one character, so binary files compare exactly. Pure.
 */
export function compareRebuild(
  rcFiles: ReadonlyMap<string, Buffer>,
  rebuiltFiles: ReadonlyMap<string, Buffer>,
  rcVersion: string,
  releaseVersion: string,
): RebuildComparison {
  const identical: string[] = [];
  const versionOnly: FileDifference[] = [];
  const code: FileDifference[] = [];
  const matched = new Set<string>();
  for (const [path, rc] of [...rcFiles].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const name = replaceVersionStrings(path, rcVersion, releaseVersion);
    const rebuilt = rebuiltFiles.get(name);
    const renamed = name !== path ? { renamed: name } : {};
    if (!rebuilt) {
      code.push({ path, ...renamed, kind: 'code', reason: `the rebuild has no ${name}` });
      continue;
    }
    matched.add(name);
    if (rc.equals(rebuilt)) {
      if (name === path) identical.push(path);
      else
        versionOnly.push({
          path,
          ...renamed,
          kind: 'version-strings',
          reason: 'its name carries the version',
        });
      continue;
    }
    const expected = replaceVersionStrings(rc.toString('latin1'), rcVersion, releaseVersion);
    if (expected === rebuilt.toString('latin1'))
      versionOnly.push({
        path,
        ...renamed,
        kind: 'version-strings',
        reason: 'differs in version strings only',
      });
    else code.push({ path, ...renamed, kind: 'code', reason: 'differs in more than version strings' });
  }
  for (const path of [...rebuiltFiles.keys()].sort())
    if (!matched.has(path)) code.push({ path, kind: 'code', reason: 'the rc has no such file' });
  return { equal: code.length === 0, identical, versionOnly, code };
}
