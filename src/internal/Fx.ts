/**
 * The effects a face lends the shared core (docs/effect4.md): the
 * checkpoint's effectful stages (the line of stages, summarise, the summary
 * policy, save, the session's memory) are written once, as generators that
 * `yield*` the face's effects, and each face runs them in its own
 * `Effect.gen`. The core never names an Effect type: a face's effect is an
 * {@link Op}, something `yield*` runs for its value, and what the core does
 * with effects beyond running them in order (catch a failure, run a
 * finalizer, time out, hold a lock, settle a signal) it asks of the
 * face's {@link Fx}. Effect 3 and Effect 4 each give one (`EffectFx`).
 *
 * @since 0.1.0
 */
import type * as Result from "./Result.js"
import * as Steps from "./Steps.js"

/**
 * A face's effect as the core sees it: `yield*` in the face's `Effect.gen`
 * runs it and gives its value. Its failures and requirements are the face's
 * to type (the core only passes them on, or asks {@link Fx.result} for them).
 *
 * @since 0.1.0
 * @category models
 */
export interface Op<A> {
  [Symbol.iterator](): Iterator<unknown, A, any>
}

/**
 * A core stage as the face runs it: a generator that `yield*`s the face's
 * effects ({@link Op}) and returns its value.
 *
 * @since 0.1.0
 * @category models
 */
export type Program<A> = Generator<unknown, A, any>

/**
 * What a timed effect gave: its value, or nothing when its time ran out (it
 * was interrupted then).
 *
 * @since 0.1.0
 * @category models
 */
export type Timed<A> = { readonly _tag: "Done"; readonly value: A } | { readonly _tag: "TimedOut" }

/**
 * The effects a face lends the core.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fx {
  /** A core program as one of the face's effects (`Effect.gen`). */
  readonly gen: <A>(program: () => Program<A>) => Op<A>
  readonly succeed: <A>(value: A) => Op<A>
  /** The value of a function, computed when the effect runs. */
  readonly sync: <A>(evaluate: () => A) => Op<A>
  /** A failure with a value of the face's own error types (the core makes them with the face's constructors). */
  readonly fail: (error: unknown) => Op<never>
  /** An effect's failure as a value: `Err` with the error (defects and interruptions are not caught). */
  readonly result: <A, E>(op: Op<A>) => Op<Result.Result<A, E>>
  /** Runs `finalize` when `op` ends, however it ends (interrupted too). */
  readonly ensuring: <A>(op: Op<A>, finalize: () => void) => Op<A>
  readonly logDebug: (message: string) => Op<void>
  readonly logWarning: (message: string) => Op<void>
  /** The clock's time, in milliseconds since the epoch. */
  readonly currentTimeMillis: Op<number>
  /** `op`, interrupted when it has not ended after `millis`. */
  readonly timeout: <A>(op: Op<A>, millis: number) => Op<Timed<A>>
  /** Gives the event loop a turn (a yield of the fiber under a synchronous scheduler). */
  readonly yieldToEventLoop: Op<void>
  /** A lock of one permit: the effects run with it run one at a time, in the order they asked. */
  readonly makeLock: () => <A>(op: Op<A>) => Op<A>
  /** A one-shot signal (a `Deferred`): {@link Signal}. */
  readonly makeSignal: <A>() => Signal<A>
  /**
   * `op`, or `retry()` when `op` ended interrupted only (the fiber running
   * this is not interrupted: something `op` waited for was).
   */
  readonly retryInterrupted: <A>(op: Op<A>, retry: () => Op<A>) => Op<A>
}

/**
 * A one-shot signal: `settle(op)` runs `op` and settles the signal with how
 * it ended; `await` ends as `op` did (its value, its failure, or interrupted).
 *
 * @since 0.1.0
 * @category models
 */
export interface Signal<A> {
  readonly await: Op<A>
  readonly settle: (op: Op<A>) => Op<A>
}

/**
 * Results shared while in flight: the effect of a key asked for while
 * another is making it waits for that one and gives `whenShared` of its value
 * (the same failure); when the maker was interrupted, the waiter makes it
 * itself.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeInFlight = <A>(fx: Fx) => {
  const running = new Map<string, Signal<A>>()
  const once = (key: string, make: () => Op<A>, whenShared: (value: A) => A): Op<A> =>
    fx.gen(function*() {
      const signal = running.get(key)
      if (signal !== undefined) {
        return yield* fx.retryInterrupted(
          fx.gen(function*() {
            return whenShared(yield* signal.await)
          }),
          // The effect making it was interrupted: this one makes it instead.
          () => once(key, make, whenShared)
        )
      }
      // Made and registered in the same step as the lookup above, so no second asker slips in between.
      const made = fx.makeSignal<A>()
      running.set(key, made)
      return yield* made.settle(fx.ensuring(make(), () => running.delete(key)))
    })
  return once
}

/**
 * A slice of work: `spent` when it has run `sliceMs` since its last pause;
 * `pause` gives the event loop a turn and starts the next slice.
 *
 * @since 0.1.0
 * @category models
 */
export interface Slice {
  readonly spent: () => boolean
  readonly pause: Op<void>
}

/**
 * A slice of `sliceMs` milliseconds (`Infinity`: never spent).
 *
 * @since 0.1.0
 * @category constructors
 */
export const slice = (fx: Fx, sliceMs: number): Slice => {
  let began = performance.now()
  return {
    spent: () => Number.isFinite(sliceMs) && performance.now() - began >= sliceMs,
    pause: fx.gen(function*() {
      yield* fx.yieldToEventLoop
      began = performance.now()
    })
  }
}

/**
 * Gives the event loop a turn when the slice is spent.
 *
 * @since 0.1.0
 * @category combinators
 */
export function* breathe(clock: Slice): Program<void> {
  if (clock.spent()) yield* clock.pause
}

/**
 * Runs steps to their end, giving the event loop a turn whenever the slice
 * is spent.
 *
 * @since 0.1.0
 * @category combinators
 */
export function* run<A>(steps: Steps.Steps<A>, clock: Slice): Program<A> {
  for (;;) {
    const next = steps.next()
    if (next.done === true) return next.value
    if (clock.spent()) yield* clock.pause
  }
}

/**
 * The value of a face's `Option` (`Some` or `None` on both faces), or undefined.
 *
 * @since 0.1.0
 * @category getters
 */
export const optionValue = <A>(option: { readonly _tag: "Some"; readonly value: A } | { readonly _tag: "None" }) =>
  option._tag === "Some" ? option.value : undefined
