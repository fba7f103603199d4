/**
 * R1.9: fetched sources and search snippets.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.sources

/**
 * The fields a fetched `source_*` record keeps: where it came from, when, its
 * hash, and where its content is stored.
 *
 * @example
 * ```ts
 * import { Sources } from "context-compressor/rules"
 *
 * // Where it came from, when, its hash and where its content is stored: never the content itself.
 * assert.deepStrictEqual(Sources.sourceFields, [
 *   "id",
 *   "url",
 *   "title",
 *   "fetchedAt",
 *   "timestamp",
 *   "sha256",
 *   "hash",
 *   "contentPath",
 *   "fetched"
 * ])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const sourceFields = BuiltInRules.sourceFields

/**
 * How much of a search snippet is kept: enough to recognise the result, not
 * enough to pass for fetched content.
 *
 * @example
 * ```ts
 * import { Sources } from "context-compressor/rules"
 *
 * assert.strictEqual(Sources.snippetChars, 300)
 * ```
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
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Sources } from "context-compressor/rules"
 *
 * const sources = Policy.make({
 *   name: "sources",
 *   description: "the sources and snippets of workspace_research results",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Sources.keepSourcesNotSnippets,
 *     Rule.prune("data.sources.*", { name: "pruneTheRest", reason: "only what cites a source is shown" })
 *   )
 * })
 * const source = {
 *   id: "source_7134f09f",
 *   url: "https://example.org/doc/0",
 *   title: "Doc 0",
 *   fetchedAt: "2026-11-29T09:00:00Z",
 *   sha256: "f053142d1d03daaa9888095e8ddc79cd4a55fc3fc56e6982084527f0ad491f5b",
 *   contentPath: ".workspace/research/research_dddb052a/sources/0.md",
 *   fetched: true
 * }
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_research",
 *   action: "deep",
 *   ok: true,
 *   data: {
 *     sources: [{ ...source, content: "text 0 b314eb360591\ntext 1 b803f6bfefd2" }],
 *     snippets: [{ url: "https://example.org/doc/1", title: "Doc 1", fetched: false, snippet: "vector stores ".repeat(60) }]
 *   }
 * }
 * const { data } = JSON.parse(Reduce.reduce(result, { policies: [sources] }).text)
 * // A fetched source is cited by where it came from and where its content is stored; its content is not kept.
 * assert.deepStrictEqual(data.sources, [source])
 * // A snippet is discovery output: its text is clipped to about snippetChars.
 * assert.strictEqual(data.snippets[0].url, "https://example.org/doc/1")
 * assert.ok(data.snippets[0].snippet.startsWith("vector stores"))
 * assert.ok(data.snippets[0].snippet.length < "vector stores ".repeat(60).length / 2)
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepSourcesNotSnippets: Rule.Rule = rules.keepSourcesNotSnippets
