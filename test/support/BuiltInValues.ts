/**
 * Every value `context-compressor/rules` exports, written down: a rule or a policy as its print
 * (`Rule.format`, `Policy.format`) and its Schema encoding, any other value (a constant, a list of
 * fields, a recovery call) as its JSON. `test/src/face/rules/BuiltInValues.test.ts` compares them with the
 * record taken before the built-in rules were written once in the shared core
 * (`test/src/face/rules/fixtures/built-in-values.json`).
 */
import * as Schema from "effect/Schema"
import * as Policy from "../../src/face/models/Policy.js"
import * as Rule from "../../src/face/models/Rule.js"
import * as BuiltIn from "../../src/face/rules/index.js"

/** How one exported value is written down. */
export type Written =
  | { readonly kind: "rule"; readonly format: string; readonly encoded: unknown }
  | { readonly kind: "policy"; readonly format: string; readonly encoded: unknown }
  | { readonly kind: "value"; readonly json: unknown }

const isRule = Schema.is(Rule.Rule)
const isPolicy = Schema.is(Policy.Policy)

/** Writes down one exported value. */
export const write = (value: unknown): Written =>
  isPolicy(value)
    ? { kind: "policy", format: Policy.format(value), encoded: Schema.encodeSync(Policy.Policy)(value) }
    : isRule(value)
    ? { kind: "rule", format: Rule.format(value), encoded: Schema.encodeSync(Rule.Rule)(value) }
    : { kind: "value", json: JSON.parse(JSON.stringify(value)) }

/** The exports of `context-compressor/rules`, by name (`Truncation.keepTruncationFlags`). */
export const exported = (): ReadonlyArray<readonly [string, unknown]> => {
  const entries: Array<readonly [string, unknown]> = []
  for (const [name, value] of Object.entries(BuiltIn)) {
    if (typeof value === "object" && value !== null && !Array.isArray(value) && !isPolicy(value) && !isRule(value)) {
      for (const [member, inner] of Object.entries(value)) entries.push([`${name}.${member}`, inner])
    } else entries.push([name, value])
  }
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

/** Every export of `context-compressor/rules`, written down. */
export const writeAll = (): Record<string, Written> =>
  Object.fromEntries(exported().map(([name, value]) => [name, write(value)]))

if (process.argv[1]?.endsWith("BuiltInValues.ts")) process.stdout.write(JSON.stringify(writeAll(), null, 2) + "\n")
