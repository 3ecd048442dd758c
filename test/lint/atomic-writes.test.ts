import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every file a user keeps (records, stamped files, keys, the OCI layout, the installed svc, svc's
// own config) is replaced by write-to-temp and rename (src/files/atomic-write.ts), so a kill at any
// moment leaves the old file or the new one. A plain write is allowed only where a half-written
// file cannot be kept by anyone: each exception below says why.
const root = resolve(import.meta.dirname, '../..');

const PLAIN_WRITES_ALLOWED: Record<string, string> = {
  'src/files/atomic-write.ts': 'the temporary sibling that is then renamed into place',
  'src/files/file-lock.ts':
    'the holder record in a private sibling that appears as the lock by link or rename, and the takeover guard opened with wx',
  'src/commands/init/run-init.ts': "the two sides of --force's diff, in a private temporary directory",
  'src/config/import-config.ts': 'the compiled config beside its source, imported once and removed',
  'src/registry/local-registry.ts': "a test registry's config in its own fresh temporary directory",
  'src/cli-package/local-npm-registry.ts':
    "a test npm registry's config in its own fresh temporary directory",
  'src/commands/promote/promote-publish-package-step.ts':
    'the tarball handed to npm publish, in a private temporary directory',
  'src/commands/stamp/github-output-step.ts':
    '$GITHUB_OUTPUT belongs to the Actions runner, and other steps append to it: one append, never a rename',
  'src/commands/rehearse/workspace.ts': 'the throw-away rehearsal repository, removed at the end',
  'src/commands/rehearse/rehearse-package-steps.ts':
    'the throw-away rehearsal repository, removed at the end',
  'src/commands/rehearse/rehearse-cli-steps.ts':
    "the gate's older CLI archive, in the throw-away rehearsal workspace, removed at the end",
  'src/commands/rehearse/start-released-image.ts':
    "a released image's files unpacked into a throw-away directory",
  'src/service/svc/update/download.ts':
    "the download, into svc update's private temporary directory (opened with wx)",
  'src/service/svc/update/preflight.ts': "the trial unpack, in svc update's private temporary directory",
  'src/service/svc/update/recover-update.ts': "the recovery lock's pid, in a file just created with O_EXCL",
  'src/service/svc/update/update-lock.ts':
    'the journal inside a private directory that appears whole by rename',
  'src/registry/oci-archive.ts':
    "an archive written as <file>.partial-<pid> and renamed into place; one read is unpacked into release mirror's private temporary directory",
  'src/registry/registry-store.ts':
    "a blob streamed into release mirror's private temporary directory, hashed there before it is sent on",
  'src/oci-image/archive-store.ts':
    "a base image's archive unpacked (and a docker save manifest synthesized) into the build's private temporary directory, removed after the build",
  'src/action/run-action.ts':
    '$GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY belong to the Actions runner, and other steps append to them: one append, never a rename',
};

const WRITE = /\b(?:writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream)\s*\(/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('writes of files users keep', () => {
  it('go through write-to-temp and rename, or are a listed exception with its reason', () => {
    const writing = sources(join(root, 'src'))
      .filter((file) => WRITE.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    const unlisted = writing.filter((file) => !(file in PLAIN_WRITES_ALLOWED));
    expect(
      unlisted,
      'use writeFileAtomically, or add the file here with the reason a plain write is safe',
    ).toEqual([]);
    // An exception whose file no longer writes is stale: remove it so the list stays the truth.
    expect(Object.keys(PLAIN_WRITES_ALLOWED).filter((file) => !writing.includes(file))).toEqual([]);
  });
});
