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
import * as Selector from "./Selector.js"

/**
 * One compiled pattern and the index of the rule it belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pattern {
  readonly segments: ReadonlyArray<Selector.Segment>
  readonly owner: number
  readonly valueType: Selector.ValueType | undefined
}

/**
 * The longest pattern, in segments, a matcher accepts.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxSegments = 4095

const width = 4096

/** How many distinct keys a step remembers the child steps of. */
const cachedKeysPerStep = 1_024

/** Past this many states, a step indexes its key segments by name. */
const indexThreshold = 16

/**
 * The live states at a node, the patterns that select it, and the cached
 * steps of its children. Also holds a slot for the interpreter's own per-step
 * cache (`memo`).
 *
 * @since 0.1.0
 * @category models
 */
export class Step {
  /** Whether some state's next segment names an array index. */
  readonly indexSensitive: boolean
  /** For the interpreter: facts about this step it computed once. */
  readonly memo: Array<unknown> = []
  children: Map<string, Step> | undefined
  indexChild: Step | undefined
  byKey: Map<string, Array<number>> | undefined
  unkeyed: Array<number> | undefined

  constructor(
    /** Encoded states (`pattern * 4096 + position`) still able to match below. */
    readonly states: ReadonlyArray<number>,
    /** Patterns that select this node (before the value-type filter). */
    readonly complete: ReadonlyArray<number>,
    patterns: ReadonlyArray<Pattern>
  ) {
    this.indexSensitive = states.some((encoded) => {
      const segment = patterns[Math.floor(encoded / width)]!.segments[encoded % width]!
      return segment._tag === "Index" || (segment._tag === "Key" && /^(0|[1-9]\d*)$/.test(segment.name))
    })
  }
}

/**
 * A set of patterns compiled for matching.
 *
 * @since 0.1.0
 * @category models
 */
export class Matcher {
  constructor(readonly patterns: ReadonlyArray<Pattern>) {}

  private close(seen: Set<number>, states: Array<number>, complete: Set<number>, pattern: number, position: number): void {
    const segments = this.patterns[pattern]!.segments
    for (let pos = position; ; pos++) {
      if (pos === segments.length) {
        complete.add(pattern)
        return
      }
      const encoded = pattern * width + pos
      if (!seen.has(encoded)) {
        seen.add(encoded)
        states.push(encoded)
      }
      if (segments[pos]!._tag !== "Deep") return
    }
  }

  private make(states: Array<number>, complete: Set<number>): Step {
    return new Step(states, Array.from(complete).sort((a, b) => a - b), this.patterns)
  }

  /** The step at the root. */
  root(): Step {
    const seen = new Set<number>()
    const states: Array<number> = []
    const complete = new Set<number>()
    this.patterns.forEach((_, index) => this.close(seen, states, complete, index, 0))
    return this.make(states, complete)
  }

  private index(from: Step): void {
    const byKey = new Map<string, Array<number>>()
    const unkeyed: Array<number> = []
    for (const encoded of from.states) {
      const segment = this.patterns[Math.floor(encoded / width)]!.segments[encoded % width]!
      if (segment._tag === "Key") {
        const list = byKey.get(segment.name)
        if (list === undefined) byKey.set(segment.name, [encoded])
        else list.push(encoded)
      } else unkeyed.push(encoded)
    }
    from.byKey = byKey
    from.unkeyed = unkeyed
  }

  private compute(edge: string | number, candidates: ReadonlyArray<number>): Step {
    const seen = new Set<number>()
    const states: Array<number> = []
    const complete = new Set<number>()
    for (let i = 0; i < candidates.length; i++) {
      const encoded = candidates[i]!
      const pattern = Math.floor(encoded / width)
      const position = encoded % width
      switch (Selector.stepResult(this.patterns[pattern]!.segments[position]!, edge)) {
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

  /** The step at the child reached from a node along `edge` (an object key or an array index). */
  step(from: Step, edge: string | number): Step {
    if (typeof edge === "number") {
      if (from.indexSensitive) return this.compute(edge, from.states)
      if (from.indexChild === undefined) from.indexChild = this.compute(edge, from.states)
      return from.indexChild
    }
    const cached = from.children?.get(edge)
    if (cached !== undefined) return cached
    let candidates = from.states
    if (from.states.length > indexThreshold) {
      // Only states whose next segment could accept this key: the key segments of that name, and the rest.
      if (from.byKey === undefined) this.index(from)
      const named = from.byKey!.get(edge)
      candidates = named === undefined ? from.unkeyed! : [...named, ...from.unkeyed!]
    }
    const next = this.compute(edge, candidates)
    if (from.children === undefined) from.children = new Map()
    if (from.children.size < cachedKeysPerStep) from.children.set(edge, next)
    return next
  }

  /** The patterns of `complete` that select `value`, its value type considered. */
  selecting(complete: ReadonlyArray<number>, value: unknown): ReadonlyArray<number> {
    if (complete.length === 0) return complete
    return complete.filter((index) => {
      const valueType = this.patterns[index]!.valueType
      return valueType === undefined || Selector.hasValueType(value, valueType)
    })
  }
}

/**
 * Every node of `value` that one of `patterns` selects, with its path, in
 * document order; at most `maxDepth` levels deep.
 *
 * @since 0.1.0
 * @category matching
 */
export const collect = (
  value: unknown,
  patterns: ReadonlyArray<string>,
  valueTypes: ReadonlyArray<Selector.ValueType | undefined> = [],
  maxDepth = 256
): ReadonlyArray<{ readonly path: string; readonly value: unknown }> => {
  const matcher = new Matcher(
    patterns.map((pattern, owner) => ({ segments: Selector.compile(pattern), owner, valueType: valueTypes[owner] }))
  )
  const found: Array<{ path: string; value: unknown }> = []
  const go = (node: unknown, step: Step, path: ReadonlyArray<string | number>, depth: number): void => {
    if (matcher.selecting(step.complete, node).length > 0) found.push({ path: Selector.formatPath(path), value: node })
    if (step.states.length === 0 || depth >= maxDepth || typeof node !== "object" || node === null) return
    if (Array.isArray(node)) {
      node.forEach((item, index) => go(item, matcher.step(step, index), [...path, index], depth + 1))
    } else {
      for (const key of Object.keys(node)) {
        go((node as Record<string, unknown>)[key], matcher.step(step, key), [...path, key], depth + 1)
      }
    }
  }
  go(value, matcher.root(), [], 0)
  return found
}
