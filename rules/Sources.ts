/**
 * R1.9: fetched sources and search snippets.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.sources(Rule.kit)

/**
 * The fields a fetched `source_*` record keeps: where it came from, when, its
 * hash, and where its content is stored.
 *
 * @since 0.1.0
 * @category constants
 */
export const sourceFields = BuiltInRules.sourceFields

/**
 * How much of a search snippet is kept: enough to recognise the result, not
 * enough to pass for fetched content.
 *
 * @since 0.1.0
 * @category constants
 */
export const snippetChars = BuiltInRules.snippetChars

/**
 * For `workspace_research`: keeps each fetched source's URL, title,
 * timestamp, hash and content path (its content is bulky text, clipped like
 * any other); keeps each search snippet's URL, title and `fetched` flag and
 * clips the snippet text to {@link snippetChars}: snippets are discovery
 * output, never fetched content.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepSourcesNotSnippets: Rule.Rule = rules.keepSourcesNotSnippets
