/**
 * Long pure loops written as generators that pause (`yield`) between pieces of work, and the
 * driver that runs them to the end at once. This is the shared core's part of
 * `Cooperative` (docs/effect4.md): it imports nothing of Effect, so the JSON reader and writer and the
 * working state's extraction step the same on Effect 3 and 4; each face's runner (`Cooperative.run`
 * on Effect 3) gives the event loop a turn between the pauses.
 *
 * @since 0.1.0
 * @internal
 */

/**
 * A pure computation of an `A` that may pause between its pieces of work.
 *
 * @since 0.1.0
 * @category models
 */
export type Steps<A> = Generator<void, A, void>

/**
 * How many items a loop handles between two pauses: a pause is only a chance
 * to look at the clock, so it may be frequent.
 *
 * @since 0.1.0
 * @category constants
 */
export const itemsPerStep = 32

/**
 * Runs steps to the end without pausing.
 *
 * @since 0.1.0
 * @category running
 */
export const runSync = <A>(steps: Steps<A>): A => {
  for (;;) {
    const next = steps.next()
    if (next.done === true) return next.value
  }
}

/**
 * The items of an array mapped with `f`, as steps that pause every
 * {@link itemsPerStep} items.
 *
 * @since 0.1.0
 * @category constructors
 */
export function* mapSteps<A, B>(items: ReadonlyArray<A>, f: (item: A, index: number) => B): Steps<Array<B>> {
  const out: Array<B> = []
  for (let index = 0; index < items.length; index++) {
    out.push(f(items[index]!, index))
    if (index % itemsPerStep === itemsPerStep - 1) yield
  }
  return out
}
