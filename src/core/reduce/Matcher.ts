/**
 * Matches many compiled path patterns in one walk of a JSON tree. A state is a
 * pattern and a position in it; stepping along an edge (key or index) turns
 * the states of a node into those of its child, and a state at the end of its
 * pattern means the child is selected.
 *
 * Steps are cached: the step reached from a step along a key is computed once,
 * and every array entry shares one step unless a pattern names an index. A
 * walk over many similar nodes (rows of a table, entries of a listing) costs a
 * map lookup per node, whatever the number of patterns.
 *
 * @since 0.1.0
 */
import * as RuleData from "./RuleData.js"

/**
 * One compiled pattern and the index of the rule it belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pattern {
  readonly segments: ReadonlyArray<RuleData.Segment>
  readonly owner: number
  readonly valueType: RuleData.ValueType | undefined
}

/**
 * The longest pattern, in segments, a matcher accepts.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxSegments = 4095

const width = 4096

// A state is one number: its pattern's index times `width` plus its position.
// Only this module reads or writes that encoding.
const encode = (pattern: number, position: number): number => pattern * width + position
const patternOf = (encoded: number): number => Math.floor(encoded / width)
const positionOf = (encoded: number): number => encoded % width

/** How many keys a step remembers the child steps of. */
const cachedKeysPerStep = 1_024

/** How many distinct steps a matcher interns; past it, new steps are not shared. */
const internedSteps = 50_000

/** Past this many states, a step indexes its key segments by name. */
const indexThreshold = 16

/**
 * The live states at a node, the patterns that select it, and the cached
 * steps of its children. Steps are interned by their states: equal state sets
 * are one step, so the caches of children form a lazily built automaton. Also
 * holds a slot for the interpreter's per-step facts (`memo`).
 *
 * @since 0.1.0
 * @category models
 */
export class Step {
  /**
   * Whether some state's next segment names an array index.
   *
   * @since 0.1.0
   */
  readonly indexSensitive: boolean
  /**
   * For the interpreter: facts about this step it computed once.
   *
   * @since 0.1.0
   */
  readonly memo: Array<unknown> = []
  /**
   * Names of the key segments some state expects next.
   *
   * @since 0.1.0
   */
  readonly literals: ReadonlySet<string>
  /**
   * The distinct globs some state expects next.
   *
   * @since 0.1.0
   */
  readonly globs: ReadonlyArray<(key: string) => boolean>
  /**
   * The patterns (indices into the matcher's list) that could still select a
   * node below this one, each once, in ascending order.
   *
   * @since 0.1.0
   */
  readonly livePatterns: ReadonlyArray<number>
  /** @internal */
  children: Map<string, Step> | undefined
  /**
   * Children along keys no literal names, by which globs the key matches.
   *
   * @internal
   */
  byGlobs: Map<string, Step> | undefined
  /** @internal */
  indexChild: Step | undefined
  /**
   * Children along each index, when some state names one.
   *
   * @internal
   */
  byIndex: Map<number, Step> | undefined
  /** @internal */
  byKey: Map<string, Array<number>> | undefined
  /** @internal */
  unkeyed: Array<number> | undefined

  constructor(
    /**
     * Encoded states still able to match below; their encoding is this
     * module's own (read {@link livePatterns} instead).
     *
     * @internal
     */
    readonly states: ReadonlyArray<number>,
    /** Patterns that select this node (before the value-type filter). */
    readonly complete: ReadonlyArray<number>,
    patterns: ReadonlyArray<Pattern>
  ) {
    let indexSensitive = false
    const literals = new Set<string>()
    const globs = new Set<(key: string) => boolean>()
    const live: Array<number> = []
    for (const encoded of states) {
      const pattern = patternOf(encoded)
      // States are sorted, so the states of one pattern are adjacent.
      if (live[live.length - 1] !== pattern) live.push(pattern)
      const segment = patterns[pattern]!.segments[positionOf(encoded)]!
      if (segment._tag === "Index" || (segment._tag === "Key" && segment.index !== undefined)) indexSensitive = true
      if (segment._tag === "Key") literals.add(segment.name)
      if (segment._tag === "Glob") globs.add(segment.test)
    }
    this.indexSensitive = indexSensitive
    this.literals = literals
    this.globs = Array.from(globs)
    this.livePatterns = live
  }
}

/**
 * A set of patterns compiled for matching.
 *
 * @since 0.1.0
 * @category models
 */
export class Matcher {
  private readonly interned = new Map<string, Step>()

  constructor(readonly patterns: ReadonlyArray<Pattern>) {}

  /** @internal */
  private close(
    seen: Set<number>,
    states: Array<number>,
    complete: Set<number>,
    pattern: number,
    position: number
  ): void {
    const segments = this.patterns[pattern]!.segments
    for (let pos = position;; pos++) {
      if (pos === segments.length) {
        complete.add(pattern)
        return
      }
      const encoded = encode(pattern, pos)
      if (!seen.has(encoded)) {
        seen.add(encoded)
        states.push(encoded)
      }
      if (segments[pos]!._tag !== "Deep") return
    }
  }

  /** @internal */
  private make(states: Array<number>, complete: Set<number>): Step {
    states.sort((a, b) => a - b)
    const completed = Array.from(complete).sort((a, b) => a - b)
    const key = states.join(",") + "|" + completed.join(",")
    const known = this.interned.get(key)
    if (known !== undefined) return known
    const step = new Step(states, completed, this.patterns)
    if (this.interned.size < internedSteps) this.interned.set(key, step)
    return step
  }

  /**
   * The step at the root.
   *
   * @since 0.1.0
   */
  root(): Step {
    const seen = new Set<number>()
    const states: Array<number> = []
    const complete = new Set<number>()
    this.patterns.forEach((_, index) => this.close(seen, states, complete, index, 0))
    return this.make(states, complete)
  }

  /** @internal */
  private index(from: Step): void {
    const byKey = new Map<string, Array<number>>()
    const unkeyed: Array<number> = []
    for (const encoded of from.states) {
      const segment = this.patterns[patternOf(encoded)]!.segments[positionOf(encoded)]!
      if (segment._tag === "Key") {
        const list = byKey.get(segment.name)
        if (list === undefined) byKey.set(segment.name, [encoded])
        else list.push(encoded)
      } else unkeyed.push(encoded)
    }
    from.byKey = byKey
    from.unkeyed = unkeyed
  }

  /** @internal */
  private compute(edge: string | number, candidates: ReadonlyArray<number>): Step {
    const seen = new Set<number>()
    const states: Array<number> = []
    const complete = new Set<number>()
    for (let i = 0; i < candidates.length; i++) {
      const encoded = candidates[i]!
      const pattern = patternOf(encoded)
      const position = positionOf(encoded)
      switch (RuleData.stepResult(this.patterns[pattern]!.segments[position]!, edge)) {
        case "advance":
          this.close(seen, states, complete, pattern, position + 1)
          break
        case "stay":
          this.close(seen, states, complete, pattern, position)
          break
        case "fail":
          break
      }
    }
    return this.make(states, complete)
  }

  /**
   * The states whose next segment could accept `key`: key segments of that name, and every other kind.
   *
   * @internal
   */
  private candidates(from: Step, key: string): ReadonlyArray<number> {
    if (from.states.length <= indexThreshold) return from.states
    if (from.byKey === undefined) this.index(from)
    const named = from.byKey!.get(key)
    return named === undefined ? from.unkeyed! : named.concat(from.unkeyed!)
  }

  /**
   * The step at the child reached from a node along `edge` (an object key or an array index).
   *
   * @since 0.1.0
   */
  step(from: Step, edge: string | number): Step {
    if (typeof edge === "number") {
      if (from.indexSensitive) {
        const known = from.byIndex?.get(edge)
        if (known !== undefined) return known
        const next = this.compute(edge, from.states)
        if (from.byIndex === undefined) from.byIndex = new Map()
        if (from.byIndex.size < cachedKeysPerStep) from.byIndex.set(edge, next)
        return next
      }
      if (from.indexChild === undefined) from.indexChild = this.compute(edge, from.states)
      return from.indexChild
    }
    const cached = from.children?.get(edge)
    if (cached !== undefined) return cached
    let next: Step
    if (from.literals.has(edge)) {
      next = this.compute(edge, this.candidates(from, edge))
    } else {
      // A key no literal names leads where the globs it matches lead: one child per combination.
      let signature = ""
      for (let i = 0; i < from.globs.length; i++) signature += from.globs[i]!(edge) ? "1" : "0"
      const shared = from.byGlobs?.get(signature)
      if (shared !== undefined) next = shared
      else {
        next = this.compute(edge, this.candidates(from, edge))
        if (from.byGlobs === undefined) from.byGlobs = new Map()
        from.byGlobs.set(signature, next)
      }
    }
    if (from.children === undefined) from.children = new Map()
    if (from.children.size < cachedKeysPerStep) from.children.set(edge, next)
    return next
  }
}
