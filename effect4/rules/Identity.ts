/**
 * The envelope's header, retention block and ids: what names the state. On Effect 4: the shared core's `identity` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Identity`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.identity(Rule.kit)

/** @since 0.1.0 */
export const keepHeader: Rule.Rule = built.keepHeader

/** @since 0.1.0 */
export const keepRetention: Rule.Rule = built.keepRetention

/** @since 0.1.0 */
export const keepIds: Rule.Rule = built.keepIds
