/**
 * Long pure loops that let the event loop run. A loop is written once as a
 * generator that pauses (`yield`) between pieces of work; {@link runSync} runs
 * it to the end at once (the pure callers), {@link run} runs it inside an
 * Effect and gives the event loop a turn whenever a slice of time has been
 * used, so that a 50,000-message checkpoint does not hold up the other
 * requests and fibers of the process. The pure part (the steps and
 * {@link runSync}) is in `Steps.ts`; this module is the Effect runner over it,
 * and the slices of time the checkpoint's stages pause by ({@link breathe}).
 *
 * @since 0.1.0
 * @internal
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as StepsCore from "../../../core/Steps.js"

/**
 * A pure computation of an `A` that may pause between its pieces of work (`Steps.Steps`).
 *
 * @since 0.1.0
 * @category models
 */
export type Steps<A> = StepsCore.Steps<A>

/**
 * How many items a loop handles between two pauses (`Steps.itemsPerStep`).
 *
 * @since 0.1.0
 * @category constants
 */
export const itemsPerStep: number = StepsCore.itemsPerStep

/**
 * Runs steps to the end without pausing (`Steps.runSync`).
 *
 * @since 0.1.0
 * @category running
 */
export const runSync: <A>(steps: Steps<A>) => A = StepsCore.runSync

/**
 * Gives the event loop a turn (timers, sockets, other fibers) before going on.
 * Under `Effect.runSync`, which cannot wait for the event loop, it only lets
 * the other fibers of the run go first (`Effect.yieldNow`).
 *
 * @since 0.1.0
 * @category running
 */
export const yieldToEventLoop: Effect.Effect<void> = Effect.flatMap(
  Compat.schedulerIsSync,
  (sync) =>
    sync
      ? Compat.yieldNow
      : Compat.callback<void>((resume) => {
        const cancel = schedule(() => resume(Effect.void))
        return Effect.sync(cancel)
      })
)

/** A macrotask (`setImmediate`), so that I/O callbacks and other requests run before the fiber resumes; its cancel. */
const schedule: (resume: () => void) => () => void = typeof setImmediate === "function"
  ? (resume) => {
    const handle = setImmediate(resume)
    return () => clearImmediate(handle)
  }
  : (resume) => {
    const handle = setTimeout(resume, 0)
    return () => clearTimeout(handle)
  }

/**
 * A clock of slices: `spent()` is true once `sliceMs` have passed since the
 * slice began; `yield*`ing {@link Slice.pause} then gives the event loop a
 * turn and begins the next slice. `Infinity` never pauses.
 *
 * @since 0.1.0
 * @category models
 */
export interface Slice {
  readonly spent: () => boolean
  readonly pause: Effect.Effect<void>
}

/**
 * A slice clock of `sliceMs` milliseconds.
 *
 * @since 0.1.0
 * @category constructors
 */
export const slice = (sliceMs: number): Slice => {
  let began = performance.now()
  return {
    spent: () => Number.isFinite(sliceMs) && performance.now() - began >= sliceMs,
    pause: Effect.flatMap(yieldToEventLoop, () =>
      Effect.sync(() => {
        began = performance.now()
      }))
  }
}

/**
 * Gives the event loop a turn when the slice is spent (between two stages of a checkpoint).
 *
 * @since 0.1.0
 * @category running
 */
export const breathe = (clock: Slice): Effect.Effect<void> =>
  Effect.suspend(() => clock.spent() ? clock.pause : Effect.void)

/**
 * Runs steps inside an Effect, pausing for the event loop whenever the slice
 * is spent.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <A>(steps: Steps<A>, clock: Slice): Effect.Effect<A> =>
  Effect.gen(function*() {
    for (;;) {
      const next = steps.next()
      if (next.done === true) return next.value
      if (clock.spent()) yield* clock.pause
    }
  })

/**
 * The items of an array mapped with `f`, as steps that pause every
 * {@link itemsPerStep} items (`Steps.mapSteps`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const mapSteps: <A, B>(items: ReadonlyArray<A>, f: (item: A, index: number) => B) => Steps<Array<B>> =
  StepsCore.mapSteps

/**
 * Maps the items of an array with `f`, pausing for the event loop whenever
 * the slice is spent.
 *
 * @since 0.1.0
 * @category running
 */
export const map = <A, B>(
  items: ReadonlyArray<A>,
  f: (item: A, index: number) => B,
  clock: Slice
): Effect.Effect<Array<B>> => run(mapSteps(items, f), clock)

/**
 * Calls `f` on the items of an array, pausing for the event loop whenever
 * the slice is spent.
 *
 * @since 0.1.0
 * @category running
 */
export const forEach = <A>(
  items: ReadonlyArray<A>,
  f: (item: A, index: number) => void,
  clock: Slice
): Effect.Effect<void> => Effect.asVoid(map(items, f, clock))
