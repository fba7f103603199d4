/**
 * R1.9: fetched sources and search snippets. On Effect 4: the shared core's `sources` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Sources`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.sources(Rule.kit)

/** @since 0.1.0 */
export const sourceFields = BuiltInRules.sourceFields

/** @since 0.1.0 */
export const snippetChars = BuiltInRules.snippetChars

/** @since 0.1.0 */
export const keepSourcesNotSnippets: Rule.Rule = built.keepSourcesNotSnippets
