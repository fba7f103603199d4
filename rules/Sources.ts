/**
 * R1.9: fetched sources and search snippets.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"

/**
 * The fields a fetched `source_*` record keeps: where it came from, when, its
 * hash, and where its content is stored.
 *
 * @since 0.1.0
 * @category constants
 */
export const sourceFields = [
  "id",
  "url",
  "title",
  "fetchedAt",
  "timestamp",
  "sha256",
  "hash",
  "contentPath",
  "fetched"
] as const

/**
 * How much of a search snippet is kept: enough to recognise the result, not
 * enough to pass for fetched content.
 *
 * @since 0.1.0
 * @category constants
 */
export const snippetChars = 300

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
export const keepSourcesNotSnippets: Rule.Rule = Rule.forTool(
  Rule.all(
    ...sourceFields.map((field) =>
      Rule.keep(`data.sources.${field}`, {
        name: "keepSources",
        reason: "a fetched source is cited by URL, time, hash and stored content path"
      })
    ),
    ...["url", "title", "fetched"].map((field) =>
      Rule.keep(`data.snippets.${field}`, {
        name: "keepSnippetsAsDiscovery",
        reason: "a search snippet is discovery output: where to look, not what the page says"
      })
    ),
    Rule.clip("data.snippets.snippet", snippetChars, {
      name: "keepSnippetsAsDiscovery",
      reason: "a search snippet is discovery output: where to look, not what the page says"
    })
  ),
  "workspace_research"
)
