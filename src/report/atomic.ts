import { randomUUID } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file as every report is written: into a temporary file beside it (same file system,
 * so the rename is atomic), flushed, then renamed over it. A CI step that collects it while the
 * run is still writing sees the old file or the new one, never half of one.
 */
export async function writeAtomicallyWith(path: string, write: (handle: FileHandle) => Promise<void>): Promise<void> {
  // Dot-prefixed: CI globs such as `reports/*.xml` do not pick it up, and it has no .xml ending.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID()}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await write(handle);
      // Without this, a crash right after the rename can leave an empty file under the final name.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
