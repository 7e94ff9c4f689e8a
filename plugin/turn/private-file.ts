// Files and folders only the user may read (the model cache, the data folder), made the way the
// native core makes the log and captures: a folder 0700 and a file 0600 from its first byte,
// a private file replaced at once (written beside it, then renamed over it), and a symbolic link
// planted where one of them goes refused, never followed. On Windows the modes are ignored by
// the platform and the profile folders are private already.
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

export const FOLDER_MODE = 0o700
export const FILE_MODE = 0o600

/** Creates `folder` (and missing parents) 0700; an existing one of ours is narrowed to 0700. */
export function makePrivateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: FOLDER_MODE })
  const stat = lstatSync(folder)
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    throw new Error(`${folder} is not a folder of its own (a symbolic link or a file stands there)`)
  }
  if (process.platform !== 'win32' && (stat.mode & 0o777 & ~FOLDER_MODE) !== 0) chmodSync(folder, FOLDER_MODE)
}

let written = 0

/** Replaces `file` with `text` at once, 0600, in a private folder; a link at `file` is replaced, not followed. */
export function writePrivateFile(file: string, text: string): void {
  makePrivateFolder(dirname(file))
  written += 1
  const partial = `${file}.${process.pid}.${written}.partial`
  try {
    // 'wx' is O_CREAT | O_EXCL: it never opens what a link at `partial` names.
    const fd = openSync(partial, 'wx', FILE_MODE)
    try {
      writeSync(fd, text)
    } finally {
      closeSync(fd)
    }
    renameSync(partial, file)
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  }
}
