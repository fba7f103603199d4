/**
 * Effect 4's effects lent to the shared core (`Fx`): the checkpoint's
 * effectful stages, written once as programs over `Fx`, run on Effect 4
 * through this, as the Effect 3 face runs them through its own
 * (`src/internal/effect3/EffectFx.ts`).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Scheduler from "effect/Scheduler"
import * as Semaphore from "effect/Semaphore"
import type * as Fx from "../../../src/internal/Fx.js"
import type * as CoreResult from "../../../src/internal/Result.js"

/**
 * Gives the event loop a turn: a macrotask (`setImmediate`), so that I/O
 * callbacks and other requests run before the fiber resumes. Under the
 * synchronous scheduler of `Effect.runSync` it only yields the fiber.
 *
 * @since 0.1.0
 * @category combinators
 */
export const yieldToEventLoop: Effect.Effect<void> = Effect.gen(function*() {
  const scheduler = yield* References.Scheduler
  if (scheduler instanceof Scheduler.MixedScheduler && scheduler.executionMode === "sync") {
    return yield* Effect.yieldNow
  }
  return yield* Effect.callback<void>((resume) => {
    const handle = setImmediate(() => resume(Effect.void))
    return Effect.sync(() => clearImmediate(handle))
  })
})

/**
 * A core op as the Effect it is on this face (every op the core yields was
 * made by this face), with the failures the caller knows it has.
 *
 * @since 0.1.0
 * @category constructors
 */
export const effect = <A, E = unknown>(op: Fx.Op<A>): Effect.Effect<A, E> => op as Effect.Effect<A, E>

/**
 * A core program as an Effect 4 effect, with the failures and requirements
 * the caller knows it has (the core does not type them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const run = <A, E = never, R = never>(program: () => Fx.Program<A>): Effect.Effect<A, E, R> =>
  Effect.gen(program as () => Generator<never, A, any>) as Effect.Effect<A, E, R>

/**
 * A `Result` of Effect 4 as the shared core's result.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resultOf = <A, E>(result: Result.Result<A, E>): CoreResult.Result<A, E> =>
  Result.isSuccess(result) ? { _tag: "Ok", value: result.success } : { _tag: "Err", error: result.failure }

/**
 * Effect 4's `Fx`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fx: Fx.Fx = {
  gen: (program) => run(program),
  succeed: Effect.succeed,
  sync: Effect.sync,
  fail: Effect.fail,
  result: <A, E>(op: Fx.Op<A>) => Effect.map(Effect.result(effect<A, E>(op)), resultOf),
  ensuring: (op, finalize) => Effect.ensuring(effect(op), Effect.sync(finalize)),
  logDebug: (message) => Effect.logDebug(message),
  logWarning: (message) => Effect.logWarning(message),
  currentTimeMillis: Clock.currentTimeMillis,
  timeout: (op, millis) =>
    Effect.map(
      Effect.timeoutOption(effect(op), millis),
      (done) => Option.isSome(done) ? { _tag: "Done", value: done.value } as const : { _tag: "TimedOut" } as const
    ),
  yieldToEventLoop,
  makeLock: () => {
    const semaphore = Semaphore.makeUnsafe(1)
    return (op) => semaphore.withPermits(1)(effect(op))
  },
  makeSignal: <A>() => {
    const signal = Deferred.makeUnsafe<A, unknown>()
    return {
      await: Deferred.await(signal),
      settle: (op: Fx.Op<A>) => Effect.onExit(effect(op), (exit) => Deferred.done(signal, exit))
    }
  },
  retryInterrupted: (op, retry) =>
    Effect.catchCause(effect(op), (cause) => Cause.hasInterruptsOnly(cause) ? effect(retry()) : Effect.failCause(cause))
}
