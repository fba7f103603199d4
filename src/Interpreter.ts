/**
 * The interpreter of retention rules: one pure walk of the envelope that
 * applies every active primitive rule and records what each decided.
 *
 * Precedence where decisions meet on a path (SPEC R1.11): an `Omit` removes
 * the node whatever else applies; a `Verbatim` node is returned unchanged (or
 * replaced by its recovery marker past its limit); a `Keep` protects the node
 * and its subtree from `Prune` and `Bulky`, though arrays inside are still
 * capped; `Clip` and `Cap` apply where they select.
 *
 * @since 0.1.0
 */
import * as Clip from "./Clip.js"
import * as Decision from "./Decision.js"
import * as Json from "./Json.js"
import * as Matcher from "./Matcher.js"
import * as Report from "./Report.js"
import * as Rule from "./Rule.js"
import * as Selector from "./Selector.js"

/**
 * Options of the interpreter.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Subtrees nested deeper than this are replaced by a marker (default 256). */
  readonly maxDepth?: number
  /** Where decisions are recorded; a fresh one when absent. */
  readonly recorder?: Report.Recorder
}

/**
 * The reduced value and the decisions that made it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Interpretation {
  readonly value: Json.Json
  readonly rules: ReadonlyArray<Report.RuleReport>
}

/**
 * The default depth limit.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxDepth = 256

interface Leaf {
  readonly rule: Rule.Decide
  readonly decision: Decision.Decision
}

/** A path as a linked list, rendered only when a decision is recorded. */
interface PathLink {
  readonly parent: PathLink | undefined
  readonly edge: string | number
}

const renderPath = (link: PathLink | undefined): string => {
  const edges: Array<string | number> = []
  for (let current = link; current !== undefined; current = current.parent) edges.push(current.edge)
  return edges.reverse().join(".")
}

/** The kinds of value a rule's value type distinguishes; also the memo slots of a step. */
type Kind = 0 | 1 | 2 | 3 | 4 | 5 | 6
const kindString = 0
const kindNumber = 1
const kinds = 7

const kindOf = (value: unknown): Kind => {
  switch (typeof value) {
    case "string":
      return Json.isRawNumber(value) ? kindNumber : kindString
    case "number":
    case "bigint":
      return kindNumber
    case "boolean":
      return 2
    case "object":
      return value === null ? 3 : Array.isArray(value) ? 4 : 5
    default:
      return 6
  }
}

const kindTypes: ReadonlyArray<Selector.ValueType | undefined> = ["string", "number", "boolean", "null", "array", "object", undefined]

const kindHasType = (kind: Kind, valueType: Selector.ValueType): boolean => kindTypes[kind] === valueType

interface Resolution {
  any: boolean
  omit?: Leaf
  verbatim?: Leaf
  keep?: Leaf
  prune?: Leaf
  bulky?: Leaf
  cap?: { readonly leaf: Leaf; readonly max: number }
  clip?: { readonly leaf: Leaf; readonly max: number }
}

const dropped: unique symbol = Symbol("dropped")
const omitted: unique symbol = Symbol("omitted")

const isBinaryLike = (text: string): boolean => {
  const sample = text.length > 512 ? text.slice(0, 512) : text
  return /^[A-Za-z0-9+/=_-]+$/.test(sample)
}

const declaredPaths = (envelope: unknown, selector: Selector.Declared): ReadonlyArray<string> => {
  const listed = Json.getPath(envelope, selector.at)
  if (typeof listed === "string") return [listed]
  if (Array.isArray(listed)) return listed.filter((entry): entry is string => typeof entry === "string")
  return []
}

interface Compiled {
  readonly leaves: ReadonlyArray<Leaf>
  readonly matcher: Matcher.Matcher
  /** Per pattern: whether its rule keeps (Keep or Verbatim), for pruned subtrees. */
  readonly keeps: ReadonlyArray<boolean>
}

const compile = (rule: Rule.Rule, envelope: unknown, recorder: Report.Recorder): Compiled => {
  const leaves: Array<Leaf> = []
  const patterns: Array<Matcher.Pattern> = []
  const keeps: Array<boolean> = []
  for (const decide of Rule.activeRules(rule, envelope)) {
    const owner = leaves.length
    leaves.push({ rule: decide, decision: decide.decision })
    const isKeep = decide.decision._tag === "Keep" || decide.decision._tag === "Verbatim"
    const selector = decide.selector
    if (selector._tag === "Path") {
      patterns.push({ segments: Selector.compile(selector.pattern), owner, valueType: selector.valueType })
      keeps.push(isKeep)
      continue
    }
    for (const path of declaredPaths(envelope, selector)) {
      const segments = Selector.compileLiteral(path)
      const head = path.split(".")[0] ?? ""
      const refusal =
        path === "" ? "names the whole envelope" :
        selector.refuse.includes(head) ? `names "${head}", which a declared path may not` :
        segments.length > Matcher.maxSegments ? "is too long" :
        undefined
      if (refusal !== undefined) {
        recorder.record(decide.name, decide.reason, { action: "refused", path, detail: `declared path ${refusal}` })
        continue
      }
      patterns.push({ segments, owner, valueType: undefined })
      keeps.push(isKeep)
    }
  }
  return { leaves, matcher: new Matcher.Matcher(patterns), keeps }
}

/**
 * Runs a rule over an envelope (any JSON value, in fact) and returns the
 * reduced value with a report of every decision. Pure and total: it never
 * throws, whatever the value holds.
 *
 * @since 0.1.0
 * @category interpreting
 */
export const interpret = (rule: Rule.Rule, envelope: unknown, options: Options = {}): Interpretation => {
  const recorder = options.recorder ?? new Report.Recorder()
  const maxDepth = options.maxDepth ?? defaultMaxDepth
  const { keeps, leaves, matcher } = compile(rule, envelope, recorder)
  const record = (leaf: Leaf, entry: Report.Entry): void => recorder.record(leaf.rule.name, leaf.rule.reason, entry)

  // The number of entries the last capped array left out, read by its parent.
  let lastCapOmitted = 0
  // The containers on the path from the root: a value met again among them is a cycle.
  const ancestors: Array<unknown> = []

  // What the rules decide at a step, for a value of one kind, computed once per step and kind.
  const resolve = (step: Matcher.Step, kind: Kind): Resolution => {
    const memoized = step.memo[kind] as Resolution | undefined
    if (memoized !== undefined) return memoized
    const resolution: Resolution = { any: false }
    for (const index of step.complete) {
      const pattern = matcher.patterns[index]!
      if (pattern.valueType !== undefined && !kindHasType(kind, pattern.valueType)) continue
      const leaf = leaves[pattern.owner]!
      const decision = leaf.decision
      resolution.any = true
      switch (decision._tag) {
        case "Omit":
          resolution.omit ??= leaf
          break
        case "Verbatim":
          resolution.verbatim ??= leaf
          break
        case "Keep":
          resolution.keep ??= leaf
          break
        case "Prune":
          resolution.prune ??= leaf
          break
        case "Bulky":
          resolution.bulky ??= leaf
          break
        case "Cap":
          if (resolution.cap === undefined || decision.max < resolution.cap.max) resolution.cap = { leaf, max: decision.max }
          break
        case "Clip":
          if (resolution.clip === undefined || decision.max < resolution.clip.max) resolution.clip = { leaf, max: decision.max }
          break
      }
    }
    step.memo[kind] = resolution
    return resolution
  }

  // Whether a rule that keeps could still match below a step: a pruned subtree is walked for it.
  const liveKeepSlot = kinds
  const hasLiveKeep = (step: Matcher.Step): boolean => {
    const memoized = step.memo[liveKeepSlot] as boolean | undefined
    if (memoized !== undefined) return memoized
    const live = step.states.some((encoded) => keeps[Math.floor(encoded / 4096)] === true)
    step.memo[liveKeepSlot] = live
    return live
  }

  const verbatimOrMarker = (leaf: Leaf, value: unknown, link: PathLink | undefined): unknown => {
    const decision = leaf.decision as Decision.Verbatim
    const whole = Json.size(value)
    const limit = decision.limit
    const measured = limit === undefined ? whole : Json.size(Json.getPath(value, limit.measure) ?? null)
    if (whole !== undefined && measured !== undefined && (limit === undefined || measured <= limit.maxChars)) {
      record(leaf, { action: "verbatim", path: renderPath(link), before: whole, after: whole })
      return value
    }
    const id = limit === undefined ? undefined : Json.getPath(envelope, limit.idPath)
    const marker: Record<string, unknown> = {
      verbatimOmitted: true,
      reason:
        measured === undefined
          ? "the value is nested too deeply to carry whole, and a truncated call is not a call"
          : `${limit?.measure ?? "the value"} has ${measured} characters, past the limit of ${limit?.maxChars}; a truncated call is not a call`
    }
    if (limit !== undefined) {
      marker["measuredChars"] = measured ?? null
      marker["limitChars"] = limit.maxChars
      marker["recovery"] = limit.recovery
      if (typeof id === "string" || typeof id === "number") Json.setOwn(marker, limit.idKey, id)
    }
    record(leaf, {
      action: "replaced",
      path: renderPath(link),
      ...(measured === undefined ? {} : { before: measured }),
      detail: `replaced by a marker naming ${limit?.recovery ?? "no recovery route"}`
    })
    return marker
  }

  const counterKey = (object: object, key: string, parent: Matcher.Step): string => {
    // The counter goes beside the array, under a name that neither the input
    // uses nor a declared omission removes.
    for (let attempt = 0; ; attempt++) {
      const candidate = attempt === 0 ? `${key}Omitted` : `${key}Reduction${attempt === 1 ? "" : attempt}Omitted`
      if (Object.prototype.hasOwnProperty.call(object, candidate)) continue
      if (resolve(matcher.step(parent, candidate), kindNumber).omit === undefined) return candidate
    }
  }

  const visit = (
    value: unknown,
    step: Matcher.Step,
    link: PathLink | undefined,
    depth: number,
    keptBy: Leaf | undefined,
    pruned: boolean,
    parentIsArray: boolean
  ): unknown => {
    const decided = resolve(step, kindOf(value))
    if (decided.any) {
      if (decided.omit !== undefined) {
        record(decided.omit, { action: "omitted", path: renderPath(link) })
        return omitted
      }
      if (decided.verbatim !== undefined) return verbatimOrMarker(decided.verbatim, value, link)
      if (decided.keep !== undefined) {
        record(decided.keep, { action: "kept", path: renderPath(link) })
        if (keptBy === undefined) keptBy = decided.keep
      }
      if (keptBy === undefined && decided.prune !== undefined) {
        if (!pruned) record(decided.prune, { action: "pruned", path: renderPath(link) })
        pruned = true
      }
    }
    const isContainer = typeof value === "object" && value !== null
    if (pruned && keptBy === undefined && (!isContainer || !hasLiveKeep(step))) return dropped

    switch (typeof value) {
      case "string": {
        if (Json.isRawNumber(value)) return value
        const clip = decided.clip
        if (clip !== undefined && value.length > clip.max) {
          const clipped = Clip.headTail(value, clip.max)
          record(clip.leaf, { action: "clipped", path: renderPath(link), before: value.length, after: clipped.length })
          return clipped
        }
        if (keptBy === undefined && decided.bulky !== undefined) {
          const bulkyLeaf = decided.bulky
          const bulky = bulkyLeaf.decision as Decision.Bulky
          if (value.length > bulky.maxChars) {
            if (bulky.elideBinary && isBinaryLike(value)) {
              const note = `[elided: ${value.length} characters of binary-looking data]`
              record(bulkyLeaf, { action: "elided", path: renderPath(link), before: value.length, after: note.length })
              return note
            }
            const clipped = Clip.headTail(value, bulky.maxChars)
            record(bulkyLeaf, { action: "clipped", path: renderPath(link), before: value.length, after: clipped.length })
            return clipped
          }
        }
        return value
      }
      case "number":
        return Number.isFinite(value) ? value : null
      case "boolean":
        return value
      case "bigint":
        return Json.fromUnknown(value).json
      case "undefined":
      case "function":
      case "symbol":
        // As JSON.stringify does: absent from objects, null inside arrays.
        return dropped
    }
    if (value === null) return null
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
      return visit((value as { toJSON: () => unknown }).toJSON(), step, link, depth, keptBy, pruned, parentIsArray)
    }
    if (depth >= maxDepth) {
      recorder.record("depthLimit", `subtrees deeper than ${maxDepth} levels cannot be serialised safely`, {
        action: "depth-cut",
        path: renderPath(link)
      })
      return Json.depthMarker(maxDepth)
    }
    for (let i = 0; i < depth; i++) {
      if (ancestors[i] === value) {
        recorder.record("cycleLimit", "a value that contains itself has no JSON form", {
          action: "depth-cut",
          path: renderPath(link),
          detail: "circular reference"
        })
        return Json.circularMarker
      }
    }
    ancestors[depth] = value

    if (Array.isArray(value)) {
      const cap = decided.cap
      // Inside an array the counter is the last entry, so one fewer entry is kept.
      const kept = cap === undefined || value.length <= cap.max
        ? value.length
        : parentIsArray ? Math.max(cap.max - 1, 0) : cap.max
      const out: Array<unknown> = []
      let anyEntry = false
      for (let index = 0; index < kept; index++) {
        const child = visit(
          value[index],
          matcher.step(step, index),
          { parent: link, edge: index },
          depth + 1,
          keptBy,
          pruned,
          true
        )
        if (child !== dropped && child !== omitted) {
          out.push(child)
          anyEntry = true
        } else {
          // A removed entry leaves null in its place: the other entries keep their
          // indices, so a path such as `data.items.3` names the same entry again.
          out.push(null)
        }
      }
      const omittedCount = value.length - kept
      if (cap !== undefined && omittedCount > 0) {
        record(cap.leaf, { action: "capped", path: renderPath(link), before: value.length, after: kept })
        if (parentIsArray) out.push({ arrayEntriesOmitted: omittedCount })
        else lastCapOmitted = omittedCount
      }
      if (pruned && keptBy === undefined && !anyEntry) return dropped
      return out
    }

    const object = value as Record<string, unknown>
    const out: Record<string, unknown> = {}
    let anyKey = false
    for (const key of Object.keys(object)) {
      lastCapOmitted = 0
      const childStep = matcher.step(step, key)
      const child = visit(
        object[key],
        childStep,
        { parent: link, edge: key },
        depth + 1,
        keptBy,
        pruned,
        false
      )
      if (child === dropped || child === omitted) continue
      Json.setOwn(out, key, child)
      anyKey = true
      if (lastCapOmitted > 0) {
        Json.setOwn(out, counterKey(object, key, step), lastCapOmitted)
        lastCapOmitted = 0
      }
    }
    if (pruned && keptBy === undefined && !anyKey) return dropped
    return out
  }

  const result = visit(envelope, matcher.root(), undefined, 0, undefined, false, false)
  lastCapOmitted = 0
  return { value: (result === dropped || result === omitted ? null : result) as Json.Json, rules: recorder.rules() }
}
