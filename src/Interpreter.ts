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

  const hasLiveKeep = (states: ReadonlyArray<number>): boolean => {
    for (let i = 0; i < states.length; i++) {
      if (keeps[Math.floor(states[i]! / 4096)]) return true
    }
    return false
  }

  const firstOf = (selecting: ReadonlyArray<number>, tag: Decision.Decision["_tag"]): Leaf | undefined => {
    for (let i = 0; i < selecting.length; i++) {
      const leaf = leaves[matcher.patterns[selecting[i]!]!.owner]!
      if (leaf.decision._tag === tag) return leaf
    }
    return undefined
  }

  const smallestOf = (selecting: ReadonlyArray<number>, tag: "Cap" | "Clip"): { leaf: Leaf; max: number } | undefined => {
    let best: { leaf: Leaf; max: number } | undefined
    for (let i = 0; i < selecting.length; i++) {
      const leaf = leaves[matcher.patterns[selecting[i]!]!.owner]!
      const decision = leaf.decision
      if (decision._tag === tag && (best === undefined || decision.max < best.max)) best = { leaf, max: decision.max }
    }
    return best
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

  const counterKey = (object: object, key: string, states: ReadonlyArray<number>): string => {
    // The counter goes beside the array, under a name that neither the input
    // uses nor a declared omission removes.
    for (let attempt = 0; ; attempt++) {
      const candidate = attempt === 0 ? `${key}Omitted` : `${key}Reduction${attempt === 1 ? "" : attempt}Omitted`
      if (Object.prototype.hasOwnProperty.call(object, candidate)) continue
      const step = matcher.step(states, candidate)
      const omitted = matcher.selecting(step.complete, 0).some(
        (index) => leaves[matcher.patterns[index]!.owner]!.decision._tag === "Omit"
      )
      if (!omitted) return candidate
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
    const selecting = matcher.selecting(step.complete, value)
    if (selecting.length > 0) {
      const omitLeaf = firstOf(selecting, "Omit")
      if (omitLeaf !== undefined) {
        record(omitLeaf, { action: "omitted", path: renderPath(link) })
        return omitted
      }
      const verbatimLeaf = firstOf(selecting, "Verbatim")
      if (verbatimLeaf !== undefined) return verbatimOrMarker(verbatimLeaf, value, link)
      const keepLeaf = firstOf(selecting, "Keep")
      if (keepLeaf !== undefined) {
        record(keepLeaf, { action: "kept", path: renderPath(link) })
        if (keptBy === undefined) keptBy = keepLeaf
      }
      if (keptBy === undefined) {
        const pruneLeaf = firstOf(selecting, "Prune")
        if (pruneLeaf !== undefined) {
          if (!pruned) record(pruneLeaf, { action: "pruned", path: renderPath(link) })
          pruned = true
        }
      }
    }
    const isContainer = typeof value === "object" && value !== null
    if (pruned && keptBy === undefined && (!isContainer || !hasLiveKeep(step.states))) return dropped

    switch (typeof value) {
      case "string": {
        if (Json.isRawNumber(value)) return value
        const clip = selecting.length > 0 ? smallestOf(selecting, "Clip") : undefined
        if (clip !== undefined && value.length > clip.max) {
          const clipped = Clip.headTail(value, clip.max)
          record(clip.leaf, { action: "clipped", path: renderPath(link), before: value.length, after: clipped.length })
          return clipped
        }
        if (keptBy === undefined && selecting.length > 0) {
          const bulkyLeaf = firstOf(selecting, "Bulky")
          const bulky = bulkyLeaf?.decision as Decision.Bulky | undefined
          if (bulkyLeaf !== undefined && bulky !== undefined && value.length > bulky.maxChars) {
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

    if (Array.isArray(value)) {
      const cap = selecting.length > 0 ? smallestOf(selecting, "Cap") : undefined
      // Inside an array the counter is the last entry, so one fewer entry is kept.
      const kept = cap === undefined || value.length <= cap.max
        ? value.length
        : parentIsArray ? Math.max(cap.max - 1, 0) : cap.max
      const out: Array<unknown> = []
      let anyEntry = false
      for (let index = 0; index < kept; index++) {
        const child = visit(
          value[index],
          matcher.step(step.states, index),
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
      const childStep = matcher.step(step.states, key)
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
        Json.setOwn(out, counterKey(object, key, step.states), lastCapOmitted)
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
