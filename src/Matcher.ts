/**
 * Matches many compiled path patterns in one walk of a JSON tree. A state is a
 * pattern and a position in it; stepping along an edge (key or index) turns
 * the states of a node into those of its child, and a state at the end of its
 * pattern means the child is selected. Cost per node is the number of live
 * states, whatever the size of the tree.
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

/**
 * The live states at a node, and the patterns that select it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  /** Encoded states (`pattern * 4096 + position`) still able to match below. */
  readonly states: ReadonlyArray<number>
  /** Patterns that select this node (before the value-type filter). */
  readonly complete: ReadonlyArray<number>
}

/**
 * A set of patterns compiled for matching.
 *
 * @since 0.1.0
 * @category models
 */
export class Matcher {
  constructor(readonly patterns: ReadonlyArray<Pattern>) {}

  private close(states: Array<number>, complete: Array<number>, pattern: number, position: number): void {
    const segments = this.patterns[pattern]!.segments
    let pos = position
    for (;;) {
      const encoded = pattern * width + pos
      if (pos === segments.length) {
        if (!complete.includes(pattern)) complete.push(pattern)
        return
      }
      if (!states.includes(encoded)) states.push(encoded)
      if (segments[pos]!._tag !== "Deep") return
      pos++
    }
  }

  /** The step at the root. */
  root(): Step {
    const states: Array<number> = []
    const complete: Array<number> = []
    this.patterns.forEach((_, index) => this.close(states, complete, index, 0))
    return { states, complete }
  }

  /** The step at the child reached from a node along `edge`. */
  step(from: ReadonlyArray<number>, edge: string | number): Step {
    const states: Array<number> = []
    const complete: Array<number> = []
    for (let i = 0; i < from.length; i++) {
      const encoded = from[i]!
      const pattern = Math.floor(encoded / width)
      const position = encoded % width
      const segment = this.patterns[pattern]!.segments[position]!
      switch (Selector.stepResult(segment, edge)) {
        case "advance":
          this.close(states, complete, pattern, position + 1)
          break
        case "stay":
          this.close(states, complete, pattern, position)
          break
        case "fail":
          break
      }
    }
    return { states, complete }
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
      node.forEach((item, index) => go(item, matcher.step(step.states, index), [...path, index], depth + 1))
    } else {
      for (const key of Object.keys(node)) {
        go((node as Record<string, unknown>)[key], matcher.step(step.states, key), [...path, key], depth + 1)
      }
    }
  }
  go(value, matcher.root(), [], 0)
  return found
}
