/**
 * The envelope's header, retention block and ids: what names the state.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"
import * as Selector from "../src/Selector.js"

/**
 * Keeps the header (`protocol`, `tool`, `action`, `ok`): what makes the
 * result an envelope.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepHeader: Rule.Rule = Rule.all(
  ...["protocol", "tool", "action", "ok"].map((path) =>
    Rule.keep(path, { name: "keepHeader", reason: "the header names the tool and action that produced the result" })
  )
)

/**
 * Keeps `retention.importance`, `retention.facts` (R1.3) and the omit list
 * itself, so reducing the output again omits the same paths.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepRetention: Rule.Rule = Rule.all(
  ...["retention.importance", "retention.facts", "retention.omit_when_summarizing"].map((path) =>
    Rule.keep(path, { name: "keepRetention", reason: "the producer's own statement of what matters in this result" })
  )
)

/**
 * Keeps every string `id`, at any depth: even where the rest of an entry is
 * pruned, its id lets the agent re-read it.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepIds: Rule.Rule = Rule.keep(Selector.path("**.id", "string"), {
  name: "keepIds",
  reason: "an id is what the agent needs to re-read the rest"
})
