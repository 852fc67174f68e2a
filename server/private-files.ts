import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';

/**
 * Modes for what the embedded profile keeps on disk (every tenant's memories, password and key
 * hashes, the token-signing secret): the owner only. Set with chmod after creating, because the
 * mode given to mkdir/open is filtered through the process umask.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and missing parents) owner-only. A directory that already exists keeps its mode:
 * an operator may share it on purpose; `looseMode` lets the caller warn about it.
 */
export function ensurePrivateDir(dir: string): void {
  if (mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE }) !== undefined) chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Writes `content` to a new owner-only file; false when the file already exists (of two processes
 * starting together, the second then reads what the first wrote).
 */
export function createPrivateFile(file: string, content = ''): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    const bytes = Buffer.from(content, 'utf8');
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The permission bits of `p` when its group or others have any access, else null (also when missing). */
export function looseMode(p: string): number | null {
  try {
    const mode = statSync(p).mode & 0o777;
    return mode & 0o077 ? mode : null;
  } catch {
    return null;
  }
}

/** `0755`-style text for log messages. */
export const octal = (mode: number) => `0${mode.toString(8)}`;
