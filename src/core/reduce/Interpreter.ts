/**
 * The interpreter of retention rules: one pure walk of the envelope that
 * applies every active primitive rule and records what each decided.
 *
 * Precedence where decisions meet on a path (SPEC R1.11): an `Omit` removes
 * the node whatever else applies, inside a `Verbatim` node too; a `Verbatim`
 * node is returned unchanged but for those omissions (or replaced by its
 * recovery marker past its limit); a `Keep` protects the node
 * and its subtree from `Prune` and `Bulky`, though arrays inside are still
 * capped; `Clip` and `Cap` apply where they select.
 *
 * @since 0.1.0
 */
import * as Json from "../json/JsonTree.js"
import * as Clip from "./Clip.js"
import * as Matcher from "./Matcher.js"
import * as Recorder from "./Recorder.js"
import * as RuleData from "./RuleData.js"

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
  readonly recorder?: Recorder.Recorder
  /**
   * Return unchanged subtrees of the input as they are instead of copying
   * them. Only for input that is plain JSON (what `JSON.parse` returns): a
   * shared subtree is not converted.
   */
  readonly shareUnchanged?: boolean
  /** Patterns whose scalar matches in the output are also returned, with their paths. */
  readonly collect?: ReadonlyArray<RuleData.Path>
}

/**
 * The reduced value, the decisions that made it, and the collected matches.
 *
 * @since 0.1.0
 * @category models
 */
export interface Interpretation {
  readonly value: Json.Json
  readonly rules: ReadonlyArray<RuleData.RuleReport>
  readonly collected: ReadonlyArray<{ readonly path: string; readonly value: Json.Json }>
  /**
   * A lower bound of the length of `value`'s compact JSON, counted during the
   * walk: enough to know that a large output passes a cap without serialising it.
   */
  readonly minimumChars: number
  /**
   * Whether the output holds an integer past 2^53, whose digits `JSON.parse`
   * may have rounded: text parsed without exact integers must be parsed again.
   */
  readonly lossyIntegers: boolean
}

/**
 * The default depth limit.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxDepth = 256

interface Leaf {
  readonly rule: RuleData.Decide
  readonly decision: RuleData.Decision
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

const kindTypes: ReadonlyArray<RuleData.ValueType | undefined> = [
  "string",
  "number",
  "boolean",
  "null",
  "array",
  "object",
  undefined
]

interface Resolution {
  any: boolean
  collect: boolean
  omit?: Leaf
  verbatim?: Leaf
  keep?: Leaf
  prune?: Leaf
  bulky?: Leaf
  cap?: { readonly leaf: Leaf; readonly max: number }
  clip?: { readonly leaf: Leaf; readonly max: number }
}

/** The key of the counter a capped array inside an array ends with. */
const entriesCounterKey = "arrayEntriesOmitted"

/** The count of an array's last entry when it is such a counter (`{ "arrayEntriesOmitted": n }`, nothing else). */
const entriesCounter = (array: ReadonlyArray<unknown>): number | undefined => {
  const last = array[array.length - 1]
  if (typeof last !== "object" || last === null || Array.isArray(last)) return undefined
  const keys = Object.keys(last)
  if (keys.length !== 1 || keys[0] !== entriesCounterKey) return undefined
  const count = (last as Record<string, unknown>)[entriesCounterKey]
  return typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? count : undefined
}

const dropped: unique symbol = Symbol("dropped")
const omitted: unique symbol = Symbol("omitted")

const isBinaryLike = (text: string): boolean => {
  const sample = text.length > 512 ? text.slice(0, 512) : text
  return /^[A-Za-z0-9+/=_-]+$/.test(sample)
}

const declaredPaths = (envelope: unknown, selector: RuleData.Declared): ReadonlyArray<string> => {
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
  /** Per pattern: whether its rule omits, for the subtrees carried verbatim. */
  readonly omits: ReadonlyArray<boolean>
  /** Declared paths that were not honoured, replayed into each report. */
  readonly refusals: ReadonlyArray<{ readonly leaf: Leaf; readonly entry: RuleData.Entry }>
}

const compile = (
  active: ReadonlyArray<RuleData.Decide>,
  declared: ReadonlyArray<ReadonlyArray<string>>,
  collect: ReadonlyArray<RuleData.Path>
): Compiled => {
  const leaves: Array<Leaf> = []
  const patterns: Array<Matcher.Pattern> = []
  const keeps: Array<boolean> = []
  const omits: Array<boolean> = []
  const refusals: Array<{ leaf: Leaf; entry: RuleData.Entry }> = []
  active.forEach((decide, index) => {
    const owner = leaves.length
    const leaf = { rule: decide, decision: decide.decision }
    leaves.push(leaf)
    const isKeep = decide.decision._tag === "Keep" || decide.decision._tag === "Verbatim"
    const isOmit = decide.decision._tag === "Omit"
    const selector = decide.selector
    if (selector._tag === "Path") {
      patterns.push({ segments: RuleData.compile(selector.pattern), owner, valueType: selector.valueType })
      keeps.push(isKeep)
      omits.push(isOmit)
      return
    }
    for (const path of declared[index] ?? []) {
      const segments = RuleData.compileLiteral(path)
      const head = path.split(".")[0] ?? ""
      const refusal = path === "" ?
        "names the whole envelope" :
        selector.refuse.includes(head) ?
        `names "${head}", which a declared path may not` :
        segments.length > Matcher.maxSegments ?
        "is too long" :
        undefined
      if (refusal !== undefined) {
        refusals.push({ leaf, entry: { action: "refused", path, detail: `declared path ${refusal}` } })
        continue
      }
      patterns.push({ segments, owner, valueType: undefined })
      keeps.push(isKeep)
      omits.push(isOmit)
    }
  })
  // Collection patterns are owned past the last leaf: they decide nothing.
  collect.forEach((selector, index) => {
    patterns.push({
      segments: RuleData.compile(selector.pattern),
      owner: leaves.length + index,
      valueType: selector.valueType
    })
    keeps.push(false)
    omits.push(false)
  })
  return { leaves, matcher: new Matcher.Matcher(patterns), keeps, omits, refusals }
}

// Compiled rules are kept per rule value and per set of active rules and
// declared paths, so a stream of similar tool results compiles once.
const compiledCache = new WeakMap<RuleData.Rule, Map<string, Compiled>>()
const compiledPerRule = 64
const maxCacheKeyLength = 16_384

// The position of each primitive rule in its rule tree, computed once per rule value.
const positionsCache = new WeakMap<RuleData.Rule, Map<RuleData.Decide, number>>()

const positionsOf = (rule: RuleData.Rule): Map<RuleData.Decide, number> => {
  let positions = positionsCache.get(rule)
  if (positions === undefined) {
    positions = new Map(RuleData.primitives(rule).map((decide, index) => [decide, index]))
    positionsCache.set(rule, positions)
  }
  return positions
}

const compiledFor = (rule: RuleData.Rule, envelope: unknown, collect: ReadonlyArray<RuleData.Path>): Compiled => {
  const active = RuleData.activeRules(rule, envelope)
  const declared = active.map((
    decide
  ) => (decide.selector._tag === "Declared" ? declaredPaths(envelope, decide.selector) : []))
  const positions = positionsOf(rule)
  const key = [
    active.map((decide) => positions.get(decide) ?? -1).join(","),
    declared.map((paths) => paths.join("\u0001")).join("\u0002"),
    collect.map((selector) => `${selector.pattern}\u0001${selector.valueType ?? ""}`).join("\u0002")
  ].join("\u0003")
  if (key.length > maxCacheKeyLength) return compile(active, declared, collect)
  let perRule = compiledCache.get(rule)
  if (perRule === undefined) {
    perRule = new Map()
    compiledCache.set(rule, perRule)
  }
  const known = perRule.get(key)
  if (known !== undefined) return known
  const compiled = compile(active, declared, collect)
  if (perRule.size >= compiledPerRule) perRule.delete(perRule.keys().next().value!)
  perRule.set(key, compiled)
  return compiled
}

/**
 * Runs a rule over an envelope (any JSON value, in fact) and returns the
 * reduced value with a report of every decision. Pure: it never changes its
 * input. Total on JSON and on ordinary JavaScript values (cycles, depth,
 * `undefined`, `bigint`, `toJSON`); only a getter that throws can make it throw.
 *
 * @since 0.1.0
 * @category interpreting
 */
export const interpret = (rule: RuleData.Rule, envelope: unknown, options: Options = {}): Interpretation => {
  const recorder = options.recorder ?? new Recorder.Recorder()
  const maxDepth = options.maxDepth ?? defaultMaxDepth
  const share = options.shareUnchanged === true
  const { keeps, leaves, matcher, omits, refusals } = compiledFor(rule, envelope, options.collect ?? [])
  for (const { entry, leaf } of refusals) recorder.record(leaf.rule.name, leaf.rule.reason, entry)
  const record = (leaf: Leaf, action: RuleData.Action, entry: () => RuleData.Entry): void =>
    recorder.note(leaf.rule.name, leaf.rule.reason, action, entry)
  const collected: Array<{ path: string; value: Json.Json }> = []
  // The edges from the root to the node being visited: a path is rendered only when recorded.
  const edges: Array<string | number> = []
  const pathAt = (depth: number): string => edges.slice(0, depth).join(".")
  // Parsed JSON has no cycles; any other value is checked against its ancestors.
  const checkCycles = !share

  // The number of entries the last capped array left out, read by its parent.
  let lastCapOmitted = 0
  // A lower bound of the output's JSON length: what each kept node adds at least.
  let minimumChars = 0
  let lossyIntegers = false
  // The containers on the path from the root: a value met again among them is a cycle.
  const ancestors: Array<unknown> = []

  // What the rules decide at a step, for a value of one kind, computed once per step and kind.
  const resolve = (step: Matcher.Step, kind: Kind): Resolution => {
    const memoized = step.memo[kind] as Resolution | undefined
    if (memoized !== undefined) return memoized
    const resolution: Resolution = { any: false, collect: false }
    for (const index of step.complete) {
      const pattern = matcher.patterns[index]!
      if (pattern.valueType !== undefined && kindTypes[kind] !== pattern.valueType) continue
      const leaf = leaves[pattern.owner]
      if (leaf === undefined) {
        resolution.collect = true
        continue
      }
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
          if (resolution.cap === undefined || decision.max < resolution.cap.max) {
            resolution.cap = { leaf, max: decision.max }
          }
          break
        case "Clip":
          if (resolution.clip === undefined || decision.max < resolution.clip.max) {
            resolution.clip = { leaf, max: decision.max }
          }
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
    const live = step.livePatterns.some((pattern) => keeps[pattern] === true)
    step.memo[liveKeepSlot] = live
    return live
  }

  // Whether an omission could still match below a step: a verbatim subtree is walked for it.
  const liveOmitSlot = kinds + 1
  const hasLiveOmit = (step: Matcher.Step): boolean => {
    const memoized = step.memo[liveOmitSlot] as boolean | undefined
    if (memoized !== undefined) return memoized
    const live = step.livePatterns.some((pattern) => omits[pattern] === true)
    step.memo[liveOmitSlot] = live
    return live
  }

  // A verbatim subtree with the declared omissions below it removed, and nothing
  // else changed: the one precedence that wins inside it (SPEC R1.11).
  let omittedInside = 0
  const withoutOmissions = (value: unknown, step: Matcher.Step, depth: number): unknown => {
    if (typeof value !== "object" || value === null || depth >= maxDepth || !hasLiveOmit(step)) return value
    if (Array.isArray(value)) {
      let out: Array<unknown> | undefined
      for (let index = 0; index < value.length; index++) {
        const original: unknown = value[index]
        edges[depth] = index
        const childStep = matcher.step(step, index)
        const omit = resolve(childStep, kindOf(original)).omit
        let entry: unknown
        if (omit !== undefined) {
          record(omit, "omitted", () => ({ action: "omitted", path: pathAt(depth + 1) }))
          omittedInside++
          entry = null
        } else entry = withoutOmissions(original, childStep, depth + 1)
        if (out === undefined && entry !== original) out = value.slice(0, index)
        out?.push(entry)
      }
      return out ?? value
    }
    const object = value as Record<string, unknown>
    const keys = Object.keys(object)
    let out: Record<string, unknown> | undefined
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!
      const original = object[key]
      edges[depth] = key
      const childStep = matcher.step(step, key)
      const omit = resolve(childStep, kindOf(original)).omit
      const child = omit === undefined ? withoutOmissions(original, childStep, depth + 1) : omitted
      if (omit !== undefined) {
        record(omit, "omitted", () => ({ action: "omitted", path: pathAt(depth + 1) }))
        omittedInside++
      }
      if (out === undefined) {
        if (child === original) continue
        out = {}
        for (let before = 0; before < index; before++) Json.setOwn(out, keys[before]!, object[keys[before]!])
      }
      if (child !== omitted) Json.setOwn(out, key, child)
    }
    return out ?? object
  }

  // Whether a path of the envelope is removed by an omission, at it or above it.
  const isOmittedPath = (path: string): boolean => {
    let step = matcher.root()
    let node: unknown = envelope
    for (const key of path.split(".")) {
      step = matcher.step(step, Array.isArray(node) && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key)
      node = Json.getOwn(node, key)
      if (resolve(step, kindOf(node)).omit !== undefined) return true
    }
    return false
  }

  const verbatimOrMarker = (leaf: Leaf, original: unknown, step: Matcher.Step, depth: number): unknown => {
    const decision = leaf.decision as RuleData.Verbatim
    const omittedBefore = omittedInside
    const value = withoutOmissions(original, step, depth)
    const omissions = omittedInside - omittedBefore
    const except = omissions === 0
      ? {}
      : { detail: `carried byte for byte except ${omissions} declared omission${omissions === 1 ? "" : "s"} inside it` }
    const wholeText = Json.stringifyOrUndefined(value)
    const whole = wholeText?.length
    if (wholeText !== undefined && /\d{16}/.test(wholeText)) lossyIntegers = true
    const limit = decision.limit
    // What is measured is what would be carried: the value without its declared omissions.
    const measured = limit === undefined ? whole : Json.size(Json.getPath(value, limit.measure) ?? null)
    if (whole !== undefined && measured !== undefined && (limit === undefined || measured <= limit.maxChars)) {
      const before = omissions === 0 ? whole : Json.size(original) ?? whole
      record(leaf, "verbatim", () => ({ action: "verbatim", path: pathAt(depth), before, after: whole, ...except }))
      minimumChars += whole
      return value
    }
    // A declared omission of the id keeps it out of the marker too.
    const id = limit === undefined || isOmittedPath(limit.idPath) ? undefined : Json.getPath(envelope, limit.idPath)
    const marker: Record<string, unknown> = {
      verbatimOmitted: true,
      reason: measured === undefined
        ? "the value is nested too deeply to carry whole, and a truncated call is not a call"
        : `${
          limit?.measure ?? "the value"
        } has ${measured} characters, past the limit of ${limit?.maxChars}; a truncated call is not a call`
    }
    if (limit !== undefined) {
      marker["measuredChars"] = measured ?? null
      marker["limitChars"] = limit.maxChars
      marker["recovery"] = limit.recovery
      if (typeof id === "string" || typeof id === "number") Json.setOwn(marker, limit.idKey, id)
    }
    record(leaf, "replaced", () => ({
      action: "replaced",
      path: pathAt(depth),
      ...(measured === undefined ? {} : { before: measured }),
      detail: `replaced by a marker naming ${limit?.recovery ?? "no recovery route"}`
    }))
    return marker
  }

  const counterKey = (object: object, key: string, parent: Matcher.Step): string => {
    // The counter goes beside the array, under a name that neither the input
    // uses nor a declared omission removes.
    for (let attempt = 0;; attempt++) {
      const candidate = attempt === 0 ? `${key}Omitted` : `${key}Reduction${attempt === 1 ? "" : attempt}Omitted`
      if (Object.prototype.hasOwnProperty.call(object, candidate)) continue
      if (resolve(matcher.step(parent, candidate), kindNumber).omit === undefined) return candidate
    }
  }

  const reduceString = (value: string, decided: Resolution, keptBy: Leaf | undefined, depth: number): string => {
    const clip = decided.clip
    if (clip !== undefined && value.length > clip.max) {
      const clipped = Clip.headTail(value, clip.max)
      record(
        clip.leaf,
        "clipped",
        () => ({ action: "clipped", path: pathAt(depth), before: value.length, after: clipped.length })
      )
      return clipped
    }
    const bulkyLeaf = decided.bulky
    if (keptBy !== undefined || bulkyLeaf === undefined) return value
    const bulky = bulkyLeaf.decision as RuleData.Bulky
    if (value.length <= bulky.maxChars) return value
    if (bulky.elideBinary && isBinaryLike(value)) {
      const note = `[elided: ${value.length} characters of binary-looking data]`
      record(
        bulkyLeaf,
        "elided",
        () => ({ action: "elided", path: pathAt(depth), before: value.length, after: note.length })
      )
      return note
    }
    const clipped = Clip.headTail(value, bulky.maxChars)
    record(
      bulkyLeaf,
      "clipped",
      () => ({ action: "clipped", path: pathAt(depth), before: value.length, after: clipped.length })
    )
    return clipped
  }

  const visit = (
    value: unknown,
    step: Matcher.Step,
    depth: number,
    keptBy: Leaf | undefined,
    pruned: boolean,
    parentIsArray: boolean
  ): unknown => {
    const decided = resolve(step, kindOf(value))
    if (decided.any) {
      if (decided.omit !== undefined) {
        record(decided.omit, "omitted", () => ({ action: "omitted", path: pathAt(depth) }))
        return omitted
      }
      if (decided.verbatim !== undefined) return verbatimOrMarker(decided.verbatim, value, step, depth)
      if (decided.keep !== undefined) {
        record(decided.keep, "kept", () => ({ action: "kept", path: pathAt(depth) }))
        if (keptBy === undefined) keptBy = decided.keep
      }
      if (keptBy === undefined && decided.prune !== undefined) {
        if (!pruned) record(decided.prune, "pruned", () => ({ action: "pruned", path: pathAt(depth) }))
        pruned = true
      }
    }
    const isContainer = typeof value === "object" && value !== null
    if (pruned && keptBy === undefined && (!isContainer || !hasLiveKeep(step))) return dropped

    let scalar: unknown
    switch (typeof value) {
      case "string":
        scalar = Json.isRawNumber(value) ? value : reduceString(value, decided, keptBy, depth)
        break
      case "number":
        scalar = Number.isFinite(value) ? value : null
        if (Json.isLossyInteger(value)) lossyIntegers = true
        break
      case "boolean":
        scalar = value
        break
      case "bigint":
        scalar = Json.fromUnknown(value).json
        break
      case "undefined":
      case "function":
      case "symbol":
        // As JSON.stringify does: absent from objects, null inside arrays.
        return dropped
      default:
        if (value === null) scalar = null
    }
    if (!isContainer) {
      if (decided.collect) collected.push({ path: pathAt(depth), value: scalar as Json.Json })
      // An integer placeholder is written back as its digits: at least one character.
      minimumChars += typeof scalar === "string" && !Json.isRawNumber(scalar)
        ? scalar.length + 2
        : typeof scalar === "number" || typeof scalar === "string"
        ? 1
        : 4
      return scalar
    }
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
      let replacement: unknown
      try {
        replacement = (value as { toJSON: () => unknown }).toJSON()
      } catch (error) {
        replacement = `[toJSON failed: ${error instanceof Error ? error.message : String(error)}]`
      }
      if (replacement !== value) return visit(replacement, step, depth, keptBy, pruned, parentIsArray)
    }
    if (depth >= maxDepth) {
      recorder.note(
        "depthLimit",
        `subtrees deeper than ${maxDepth} levels cannot be serialised safely`,
        "depth-cut",
        () => ({
          action: "depth-cut",
          path: pathAt(depth)
        })
      )
      minimumChars += 2
      return Json.depthMarker(maxDepth)
    }
    for (let i = 0; checkCycles && i < depth; i++) {
      if (ancestors[i] === value) {
        recorder.note("cycleLimit", "a value that contains itself has no JSON form", "depth-cut", () => ({
          action: "depth-cut",
          path: pathAt(depth),
          detail: "circular reference"
        }))
        minimumChars += 2
        return Json.circularMarker
      }
    }
    ancestors[depth] = value

    if (Array.isArray(value)) {
      const cap = decided.cap
      // Inside an array the counter is a last entry; one an earlier reduction
      // left there is counted apart from the entries, so reducing again adds to it.
      const counted = cap !== undefined && parentIsArray ? entriesCounter(value) : undefined
      const entries = counted === undefined ? value.length : value.length - 1
      const kept = cap === undefined || entries <= cap.max ? entries : cap.max
      // With sharing, a copy is made only once an entry differs.
      let out: Array<unknown> | undefined = share && kept === entries ? undefined : []
      let anyEntry = false
      for (let index = 0; index < kept; index++) {
        const original = value[index]
        edges[depth] = index
        const floor = minimumChars
        const child = visit(original, matcher.step(step, index), depth + 1, keptBy, pruned, true)
        const entry = child === dropped || child === omitted ? null : child
        if (child !== dropped && child !== omitted) anyEntry = true
        else minimumChars = floor
        minimumChars += 1
        if (out === undefined) {
          if (entry === original) continue
          out = value.slice(0, index)
        }
        // A removed entry leaves null in its place: the other entries keep their
        // indices, so a path such as `data.items.3` names the same entry again.
        out.push(entry)
      }
      const omittedCount = entries - kept
      if (cap !== undefined && omittedCount > 0) {
        record(cap.leaf, "capped", () => ({ action: "capped", path: pathAt(depth), before: entries, after: kept }))
        if (!parentIsArray) lastCapOmitted = omittedCount
      }
      if (parentIsArray && (omittedCount > 0 || counted !== undefined) && (out !== undefined || omittedCount > 0)) {
        out ??= value.slice(0, kept)
        out.push({ [entriesCounterKey]: omittedCount + (counted ?? 0) })
      }
      if (pruned && keptBy === undefined && !anyEntry) return dropped
      minimumChars += 1
      return out ?? value
    }

    const object = value as Record<string, unknown>
    const keys = Object.keys(object)
    let out: Record<string, unknown> | undefined = share ? undefined : {}
    let anyKey = false
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!
      const original = object[key]
      lastCapOmitted = 0
      edges[depth] = key
      const floor = minimumChars
      const child = visit(original, matcher.step(step, key), depth + 1, keptBy, pruned, false)
      const capOmitted = lastCapOmitted
      lastCapOmitted = 0
      const removed = child === dropped || child === omitted
      if (!removed) {
        anyKey = true
        minimumChars += key.length + 4
      } else minimumChars = floor
      if (out === undefined) {
        if (!removed && child === original && capOmitted === 0) continue
        out = {}
        for (let before = 0; before < index; before++) Json.setOwn(out, keys[before]!, object[keys[before]!])
      }
      if (removed) continue
      Json.setOwn(out, key, child)
      if (capOmitted > 0) Json.setOwn(out, counterKey(object, key, step), capOmitted)
    }
    if (pruned && keptBy === undefined && !anyKey) return dropped
    minimumChars += 1
    return out ?? object
  }

  const result = visit(envelope, matcher.root(), 0, undefined, false, false)
  return {
    value: (result === dropped || result === omitted ? null : result) as Json.Json,
    rules: recorder.rules(),
    collected,
    minimumChars: result === dropped || result === omitted ? 0 : minimumChars,
    lossyIntegers
  }
}
