/**
 * The rule algebra as the shared core (docs/effect4.md) sees it: the shapes of selectors,
 * conditions, decisions and rules as plain structural types, and the pure functions the interpreter
 * evaluates them with (compiling and stepping selectors, whether a condition holds, which
 * primitive rules take part). No Effect import: each face declares these shapes as its own Schema
 * classes (`Selector.Path`, `Rule.Decide`, … on Effect 3), whose values have these shapes, and
 * gives these functions under its own names, so one interpreter runs on the values of both faces.
 *
 * @since 0.1.0
 */
import * as Json from "../json/JsonTree.js"

/**
 * The type of value a selector may be restricted to.
 *
 * @since 0.1.0
 * @category models
 */
export type ValueType = "string" | "number" | "boolean" | "null" | "array" | "object"

/**
 * @since 0.1.0
 * @category models
 */
export interface Path {
  readonly _tag: "Path"
  readonly pattern: string
  readonly valueType?: ValueType
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Declared {
  readonly _tag: "Declared"
  readonly at: string
  readonly refuse: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export type Selector = Path | Declared

/**
 * @since 0.1.0
 * @category models
 */
export type Condition =
  | { readonly _tag: "Always" }
  | { readonly _tag: "Equals"; readonly path: string; readonly value: string | number | boolean | null }
  | { readonly _tag: "Exists"; readonly path: string; readonly valueType?: ValueType }
  | { readonly _tag: "And"; readonly conditions: ReadonlyArray<Condition> }
  | { readonly _tag: "Or"; readonly conditions: ReadonlyArray<Condition> }
  | { readonly _tag: "Not"; readonly condition: Condition }

/**
 * @since 0.1.0
 * @category models
 */
export interface VerbatimLimit {
  readonly measure: string
  readonly maxChars: number
  readonly recovery: string
  readonly idPath: string
  readonly idKey: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Verbatim {
  readonly _tag: "Verbatim"
  readonly limit?: VerbatimLimit
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Bulky {
  readonly _tag: "Bulky"
  readonly maxChars: number
  readonly elideBinary: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Omit" }
  | Verbatim
  | { readonly _tag: "Keep" }
  | { readonly _tag: "Cap"; readonly max: number }
  | { readonly _tag: "Clip"; readonly max: number }
  | { readonly _tag: "Prune" }
  | Bulky

/**
 * @since 0.1.0
 * @category models
 */
export interface Decide {
  readonly _tag: "Decide"
  readonly name: string
  readonly reason: string
  readonly selector: Selector
  readonly decision: Decision
}

/**
 * @since 0.1.0
 * @category models
 */
export type Rule =
  | Decide
  | { readonly _tag: "All"; readonly name?: string; readonly rules: ReadonlyArray<Rule> }
  | { readonly _tag: "First"; readonly name?: string; readonly rules: ReadonlyArray<Rule> }
  | { readonly _tag: "When"; readonly name?: string; readonly condition: Condition; readonly rule: Rule }

/**
 * What a rule did to a path.
 *
 * @since 0.1.0
 * @category models
 */
export type Action =
  | "kept"
  | "verbatim"
  | "replaced"
  | "omitted"
  | "pruned"
  | "capped"
  | "clipped"
  | "elided"
  | "refused"
  | "depth-cut"

/**
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly action: Action
  readonly path: string
  readonly before?: number | undefined
  readonly after?: number | undefined
  readonly detail?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RuleReport {
  readonly rule: string
  readonly reason: string
  readonly counts: { readonly [action: string]: number }
  readonly entries: ReadonlyArray<Entry>
  readonly entriesOmitted: number
}

/**
 * How many entries a rule's report lists before it only counts.
 *
 * @since 0.1.0
 * @category constants
 */
export const entriesPerRule = 50

/**
 * One compiled segment of a pattern.
 *
 * @since 0.1.0
 * @category models
 */
export type Segment =
  | { readonly _tag: "Key"; readonly name: string; readonly index: number | undefined }
  | { readonly _tag: "Glob"; readonly source: string; readonly test: (key: string) => boolean }
  | { readonly _tag: "AnyKey" }
  | { readonly _tag: "Deep" }
  | { readonly _tag: "AnyIndex" }
  | { readonly _tag: "Index"; readonly index: number }

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const indexPattern = /^(0|[1-9]\d*)$/

const key = (name: string): Segment => ({
  _tag: "Key",
  name,
  index: indexPattern.test(name) ? Number(name) : undefined
})

// The common globs (`*Suffix`, `Prefix*`, `*part*`) test with string methods; the rest with a regex.
const compileGlob = (source: string): Segment => {
  const parts = source.split("*")
  const literal = parts.filter((part) => part !== "")
  const only = literal[0] ?? ""
  const test: (key: string) => boolean = literal.length === 0 ?
    () => true :
    literal.length === 1 && parts.length === 2 && parts[0] === "" ?
    (k) => k.endsWith(only) :
    literal.length === 1 && parts.length === 2 && parts[1] === "" ?
    (k) => k.startsWith(only) :
    literal.length === 1 && parts.length === 3 && parts[0] === "" && parts[2] === "" ?
    (k) => k.includes(only) :
    ((regex) => (k: string) => regex.test(k))(new RegExp("^" + parts.map(escapeRegex).join(".*") + "$", "s"))
  return { _tag: "Glob", source, test }
}

const compileSegment = (text: string): Segment => {
  if (text === "**") return { _tag: "Deep" }
  if (text === "*") return { _tag: "AnyKey" }
  if (text === "[]") return { _tag: "AnyIndex" }
  const index = /^\[(0|[1-9]\d*)\]$/.exec(text)
  if (index !== null) return { _tag: "Index", index: Number(index[1]) }
  if (text.includes("*")) return compileGlob(text)
  return key(text)
}

/**
 * Compiles a pattern into segments. Every string is a pattern: the empty string
 * selects the root.
 *
 * @since 0.1.0
 * @category compiling
 */
export const compile = (pattern: string): ReadonlyArray<Segment> =>
  pattern === "" ? [] : pattern.split(".").map(compileSegment)

/**
 * Compiles a declared (literal) path: every segment is a plain key, whatever
 * characters it holds.
 *
 * @since 0.1.0
 * @category compiling
 */
export const compileLiteral = (path: string): ReadonlyArray<Segment> => path === "" ? [] : path.split(".").map(key)

/**
 * Whether a segment consumes the edge from a node to one of its children. An
 * edge is an object key (string) or an array index (number).
 *
 * @since 0.1.0
 * @category matching
 */
export const stepResult = (segment: Segment, edge: string | number): "advance" | "stay" | "fail" => {
  switch (segment._tag) {
    case "Deep":
      return "stay"
    case "AnyIndex":
      return typeof edge === "number" ? "advance" : "fail"
    case "Index":
      return edge === segment.index ? "advance" : "fail"
    case "Key":
      if (typeof edge === "number") {
        // A numeric name selects that index; any other name passes through the array.
        if (segment.index === undefined) return "stay"
        return segment.index === edge ? "advance" : "fail"
      }
      return edge === segment.name ? "advance" : "fail"
    case "Glob":
      if (typeof edge === "number") return "stay"
      return segment.test(edge) ? "advance" : "fail"
    case "AnyKey":
      return typeof edge === "number" ? "stay" : "advance"
  }
}

/**
 * Whether a value has the given type.
 *
 * @since 0.1.0
 * @category matching
 */
export const hasValueType = (value: unknown, valueType: ValueType): boolean => {
  switch (valueType) {
    case "null":
      return value === null
    case "array":
      return Array.isArray(value)
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value)
    case "number":
      return typeof value === "number" || (typeof value === "string" && Json.isRawNumber(value))
    case "string":
      return typeof value === "string" && !Json.isRawNumber(value)
    case "boolean":
      return typeof value === "boolean"
  }
}

/**
 * Evaluates a condition against an envelope (or any JSON value).
 *
 * @since 0.1.0
 * @category evaluation
 */
export const holds = (condition: Condition, envelope: unknown): boolean => {
  switch (condition._tag) {
    case "Always":
      return true
    case "Equals":
      return Json.getPath(envelope, condition.path) === condition.value
    case "Exists": {
      const value = Json.getPath(envelope, condition.path)
      return value !== undefined && (condition.valueType === undefined || hasValueType(value, condition.valueType))
    }
    case "And":
      return condition.conditions.every((c) => holds(c, envelope))
    case "Or":
      return condition.conditions.some((c) => holds(c, envelope))
    case "Not":
      return !holds(condition.condition, envelope)
  }
}

/**
 * Whether a rule takes part for this envelope: its conditions hold (for
 * `first`, some alternative's do).
 *
 * @since 0.1.0
 * @category evaluation
 */
export const applies = (rule: Rule, envelope: unknown): boolean => {
  switch (rule._tag) {
    case "Decide":
    case "All":
      return true
    case "First":
      return rule.rules.some((r) => applies(r, envelope))
    case "When":
      return holds(rule.condition, envelope) && applies(rule.rule, envelope)
  }
}

/**
 * The primitive rules that take part for an envelope, in order: conditions
 * evaluated, `first` resolved.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const activeRules = (rule: Rule, envelope: unknown): ReadonlyArray<Decide> => {
  const active: Array<Decide> = []
  const go = (current: Rule): void => {
    switch (current._tag) {
      case "Decide":
        active.push(current)
        return
      case "All":
        current.rules.forEach(go)
        return
      case "First": {
        const chosen = current.rules.find((r) => applies(r, envelope))
        if (chosen !== undefined) go(chosen)
        return
      }
      case "When":
        if (holds(current.condition, envelope)) go(current.rule)
        return
    }
  }
  go(rule)
  return active
}

/**
 * Every primitive rule of a rule tree, whatever the conditions.
 *
 * @since 0.1.0
 * @category getters
 */
export const primitives = (rule: Rule): ReadonlyArray<Decide> => {
  switch (rule._tag) {
    case "Decide":
      return [rule]
    case "All":
    case "First":
      return rule.rules.flatMap(primitives)
    case "When":
      return primitives(rule.rule)
  }
}

/**
 * A recovery call of a policy's overflow list (`Policy.RecoveryCall` on Effect 3).
 *
 * @since 0.1.0
 * @category models
 */
export interface RecoveryCall {
  readonly tool: string
  readonly arguments: { readonly [name: string]: string }
  readonly forEach?: string
  readonly idArgument?: string
  readonly onlyIf?: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RecoveryList {
  readonly _tag: "RecoveryList"
  readonly header: ReadonlyArray<string>
  readonly idPrefixes: ReadonlyArray<string>
  readonly calls: ReadonlyArray<RecoveryCall>
  readonly preserve: ReadonlyArray<{ readonly pattern: string; readonly valueType?: ValueType }>
  readonly facts?: string
  readonly essentials: ReadonlyArray<string>
}

/**
 * A policy: which envelopes it accepts, its rule, what it carries beyond the cap and what its
 * overflow gives (`Policy.Policy` on Effect 3).
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly name: string
  readonly description: string
  readonly accepts: Condition
  readonly rule: Rule
  readonly carry: ReadonlyArray<string>
  readonly overflow: RecoveryList | { readonly _tag: "ClipText" }
}

/**
 * The first policy that accepts a value (an object), if any.
 *
 * @since 0.1.0
 * @category evaluation
 */
export const select = <P extends Policy>(policies: ReadonlyArray<P>, value: unknown): P | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? policies.find((policy) => holds(policy.accepts, value))
    : undefined

/**
 * The keys of an agentic-workspace/v1 envelope's header, which a declared omission may not name.
 *
 * @since 0.1.0
 * @category constants
 */
export const envelopeHeaderKeys: ReadonlyArray<string> = ["protocol", "tool", "action", "ok", "retention"]
