/**
 * Long pure loops that let the event loop run. A loop is written once as a
 * generator that pauses (`yield`) between pieces of work; {@link runSync} runs
 * it to the end at once (the pure callers), {@link run} runs it inside an
 * Effect and gives the event loop a turn whenever a slice of time has been
 * used, so that a 50,000-message checkpoint does not hold up the other
 * requests and fibers of the process. The pure part (the steps and
 * {@link runSync}) is the shared core's, in `Steps.ts`; this module is the
 * Effect 3 runner over it.
 *
 * @since 0.1.0
 * @internal
 */
import * as Effect from "effect/Effect"
import * as EffectFx from "./effect3/EffectFx.js"
import * as Fx from "./Fx.js"
import * as StepsCore from "./Steps.js"

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
export const yieldToEventLoop: Effect.Effect<void> = EffectFx.yieldToEventLoop

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
export const slice = (sliceMs: number): Slice => Fx.slice(EffectFx.fx, sliceMs) as Slice

/**
 * Runs steps inside an Effect, pausing for the event loop whenever the slice
 * is spent.
 *
 * @since 0.1.0
 * @category running
 */
export const run = <A>(steps: Steps<A>, clock: Slice): Effect.Effect<A> => EffectFx.run(() => Fx.run(steps, clock))

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
