// doctor's `project-settings` check: the settings a project's opencode.json sets that are the
// user's alone (what runs, with which permissions, what is recorded), which the plugin ignores.
import { ignoredProjectSettings } from '../opencode/trusted-settings.js'
import { type Check, check } from './doctor-check.js'

export function projectSettingsCheck(cwd: string, env: Record<string, string | undefined>): Check {
  const found = ignoredProjectSettings(cwd, env)
  if (found.length === 0)
    return check('project-settings', 'ok', "no project configuration sets a setting that is the user's")
  const listed = found.map(({ file, key, value }) => `${key}=${JSON.stringify(value)} in ${file}`)
  return check(
    'project-settings',
    'warning',
    `ignored, as only your own configuration may set them: ${listed.join(', ')}`,
    'Set these in your environment (CURSOR_ACP_*, CURSOR_AGENT_EXECUTABLE) or your own OpenCode configuration (~/.config/opencode/opencode.json) if you want them; a project may only set force: false, toolMode: "opencode", capture: false and capturePrompt: false.',
  )
}
