// Which folder Cursor works in: the user's explicit choice, else OpenCode's project.
import { statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, parse, relative, resolve } from 'node:path'
import { CodedError } from './failure.js'

export interface WorkspaceCandidates {
  /** `CURSOR_ACP_WORKSPACE` */
  explicit?: string
  /** OpenCode's `worktree` (`/` for a folder outside git) */
  worktree?: string
  /** OpenCode's `directory` */
  directory?: string
  home?: string
}

function isInside(child: string, parent: string): boolean {
  const path = relative(parent, child)
  return path === '' || (!path.startsWith('..') && !isAbsolute(path))
}

/** Why a folder cannot be Cursor's workspace, or null when it can. */
export function refusal(folder: string, home: string = homedir()): string | null {
  if (!isAbsolute(folder)) return 'it is not an absolute path'
  const absolute = resolve(folder)
  if (parse(absolute).root === absolute) return 'it is the filesystem root'
  if (isInside(absolute, join(home, '.config', 'opencode'))) return "it is inside OpenCode's configuration folder"
  try {
    if (!statSync(absolute).isDirectory()) return 'it is not a folder'
  } catch {
    return 'it does not exist'
  }
  return null
}

/**
 * `explicit` when set (a refused value throws `E_INVALID_ARG`); else `worktree` when it is a real
 * project root containing `directory`; else `directory`; refused candidates are skipped, and the
 * home folder is the last resort.
 */
export function pickWorkspace(candidates: WorkspaceCandidates): string {
  const home = candidates.home ?? homedir()
  if (candidates.explicit !== undefined) {
    const why = refusal(candidates.explicit, home)
    if (why !== null) {
      throw new CodedError(
        'E_INVALID_ARG',
        `CURSOR_ACP_WORKSPACE=${JSON.stringify(candidates.explicit)} cannot be used as Cursor's workspace: ${why}.`,
      )
    }
    return resolve(candidates.explicit)
  }
  const { worktree, directory } = candidates
  if (worktree !== undefined && refusal(worktree, home) === null) {
    if (directory === undefined || isInside(resolve(directory), resolve(worktree))) return resolve(worktree)
  }
  if (directory !== undefined && refusal(directory, home) === null) return resolve(directory)
  return home
}
