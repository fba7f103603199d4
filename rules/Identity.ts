/**
 * The envelope's header, retention block and ids: what names the state.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.identity(Rule.kit)

/**
 * Keeps the header (`protocol`, `tool`, `action`, `ok`): what makes the
 * result an envelope.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepHeader: Rule.Rule = rules.keepHeader

/**
 * Keeps `retention.importance`, `retention.facts` (R1.3) and the omit list
 * itself, so reducing the output again omits the same paths.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepRetention: Rule.Rule = rules.keepRetention

/**
 * Keeps every string `id`, at any depth: even where the rest of an entry is
 * pruned, its id lets the agent re-read it.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepIds: Rule.Rule = rules.keepIds
