// Which Cursor id a request of OpenCode's runs. OpenCode shows one model per family (`gpt-5.4`)
// with a variant per rung (`high`, `high-fast`): the family's entry and each variant set the
// provider option `cursorModel` to the listed id, which OpenCode (1.18 and 2) merges into the
// call's provider options under the provider's id (read with the call's other options,
// `readCallOptions`). A model without it (an id of its own, an id from an older configuration)
// runs its own id. The grouping is the addon's; nothing here reads an id.

/** The provider option a family's entry and its variants set: the listed id to run. */
export const CURSOR_MODEL_OPTION = 'cursorModel'

/** The parts of OpenCode's configuration that name a model as `<provider>/<model>`. */
interface ModelReferences {
  model?: string
  small_model?: string
  agent?: Record<string, { model?: string } | undefined>
  mode?: Record<string, { model?: string } | undefined>
  command?: Record<string, { model?: string } | undefined>
  provider?: Record<string, { models?: Record<string, unknown> } | undefined>
}

/**
 * The model ids of `provider` the user's configuration names: its default and small model, each
 * agent's, mode's and command's, and the models written by hand in its provider block. An id a
 * family replaced in the picker stays a model of its own when named here, so that a
 * configuration written before keeps working.
 */
export function configuredModelIds(config: ModelReferences, provider: string): Set<string> {
  const named = [
    config.model,
    config.small_model,
    ...[config.agent, config.mode, config.command].flatMap((entries) =>
      Object.values(entries ?? {}).map((entry) => entry?.model),
    ),
  ]
  const prefix = `${provider}/`
  const ids = named.flatMap((model) =>
    typeof model === 'string' && model.startsWith(prefix) ? [model.slice(prefix.length)] : [],
  )
  return new Set([...ids, ...Object.keys(config.provider?.[provider]?.models ?? {})])
}
