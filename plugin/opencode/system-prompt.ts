// What Cursor is told of OpenCode's system prompt in tool mode `cursor`.
//
// OpenCode 1.18 sends one system message built of parts it joins with a line break: the agent's
// prompt (chosen by the model's name), the model line and `<env>...</env>`, one part per
// instruction file (`Instructions from: <path>` and the file's text, AGENTS.md among them), and
// last the skills it offers (`Skills provide ...` and `<available_skills>`). In tool mode
// `cursor` Cursor's model has its own tools, which the tool view shows as OpenCode's `bash`,
// `read`, `edit`, `write`, `grep`, `glob`, `list`, `todowrite`, `webfetch` and `delete`
// (tool-view.ts); OpenCode's `task` and `skill` have no counterpart, so their guidance only
// costs bytes on every fresh turn and asks for calls the model cannot make. The rules below
// remove that guidance and nothing else. They are keyed on OpenCode's own markers: a part of
// the system message is told apart by the line that opens it, a rule applies in one kind of
// part only, the instruction files' text is never a rule's, and a prompt with none of the
// markers or none of the guidance passes unchanged. In tool mode `opencode` OpenCode's tools are
// Cursor's too, and the prompt is left whole (provider.ts).

/** The kinds of part in OpenCode's system message, by the marker that opens each. */
export type Section =
  /** Everything before the environment: the agent's prompt, the model line. */
  | 'agent'
  /** From the `<env>` line to the first instruction file. */
  | 'environment'
  /** From the first `Instructions from: ` line: the instruction files, never changed. */
  | 'instructions'
  /** The skills block that ends the message. */
  | 'skills'

/** One rule: within parts of kind `section`, each stretch `unit` matches that holds `when` goes. */
export interface PromptRule {
  section: Exclude<Section, 'instructions'>
  /** The stretches the rule looks at (a global, multi-line pattern). */
  unit: RegExp
  /** What makes a stretch the guidance to drop. */
  when: RegExp
  /** Why Cursor's model is better without it. */
  why: string
}

/** A line of OpenCode's prompt that names its `task` tool (OpenCode spells it "Task tool"). */
const TASK_TOOL = /\bTask tool\b/

/** The rules for tool mode `cursor`, applied in order. */
export const CURSOR_TOOL_MODE_RULES: readonly PromptRule[] = [
  {
    section: 'skills',
    unit: /[\s\S]+/g,
    when: /<available_skills>/,
    why: 'skills are loaded with the `skill` tool, which Cursor’s model does not have',
  },
  {
    section: 'agent',
    unit: /^<example>\n[\s\S]*?^<\/example>\n?/gm,
    when: TASK_TOOL,
    why: 'an example of a `task` call: Cursor’s model has no `task` tool',
  },
  {
    section: 'agent',
    unit: /^.*(?:\n|$)/gm,
    when: TASK_TOOL,
    why: 'guidance to delegate to the `task` tool, which Cursor’s model does not have',
  },
]

/** OpenCode's skills part: its two fixed lines and the list, ending the message. */
const SKILLS =
  /\n?Skills provide specialized instructions and workflows for specific tasks\.\nUse the skill tool to load a skill when a task matches its description\.\n<available_skills>\n[\s\S]*<\/available_skills>\s*$/
const INSTRUCTIONS = /^Instructions from: /m
const ENVIRONMENT = /^<env>$/m

/** `text` cut at OpenCode's markers, in order; the pieces joined give `text` back. */
export function sectionsOf(text: string): Array<{ section: Section; text: string }> {
  const pieces: Array<{ section: Section; text: string }> = []
  const skills = SKILLS.exec(text)
  const body = skills === null ? text : text.slice(0, skills.index)
  const instructionsAt = body.search(INSTRUCTIONS)
  const head = instructionsAt < 0 ? body : body.slice(0, instructionsAt)
  const environmentAt = head.search(ENVIRONMENT)
  if (environmentAt < 0) pieces.push({ section: 'agent', text: head })
  else {
    pieces.push({ section: 'agent', text: head.slice(0, environmentAt) })
    pieces.push({ section: 'environment', text: head.slice(environmentAt) })
  }
  if (instructionsAt >= 0) pieces.push({ section: 'instructions', text: body.slice(instructionsAt) })
  if (skills !== null) pieces.push({ section: 'skills', text: skills[0] })
  return pieces.filter((piece) => piece.text !== '')
}

/** `text` with the `rules` applied, part by part; the instruction files' text as it was. */
export function applyPromptRules(text: string, rules: readonly PromptRule[]): string {
  let changed = false
  const pieces = sectionsOf(text).map(({ section, text: piece }) => {
    let result = piece
    for (const rule of rules) {
      if (rule.section !== section) continue
      result = result.replace(rule.unit, (stretch) => (rule.when.test(stretch) ? '' : stretch))
    }
    if (result !== piece) changed = true
    return result
  })
  return changed ? pieces.join('') : text
}
