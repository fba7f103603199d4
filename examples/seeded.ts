/**
 * The seeded generator the example generators share, so their output is the same on every run.
 */

/** mulberry32: a small seeded generator, enough to vary the example text. */
export const seeded = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const below = (n: number): number => Math.floor(next() * n)
  const between = (min: number, max: number): number => min + below(max - min + 1)
  const pick = <A>(items: ReadonlyArray<A>): A => items[below(items.length)] as A
  return { below, between, pick, chance: (p: number): boolean => next() < p }
}
