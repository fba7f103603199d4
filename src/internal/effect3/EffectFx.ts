/**
 * Effect 3's effects lent to the shared core (`Fx`): the checkpoint's
 * effectful stages, written once as programs over `Fx`, run on Effect 3
 * through this. The Effect 4 face has its own (`effect4/src/internal/EffectFx.ts`).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Scheduler from "effect/Scheduler"
import type * as Fx from "../Fx.js"
import type * as Result from "../Result.js"

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
 * Gives the event loop a turn: a macrotask (`setImmediate`), so that I/O
 * callbacks and other requests run before the fiber resumes. Under a
 * synchronous scheduler (`Effect.runSync`) it only yields the fiber.
 *
 * @since 0.1.0
 * @category combinators
 */
export const yieldToEventLoop: Effect.Effect<void> = Effect.flatMap(
  FiberRef.get(FiberRef.currentScheduler),
  (scheduler) =>
    scheduler instanceof Scheduler.SyncScheduler
      ? Effect.yieldNow()
      : Effect.async<void>((resume) => {
        const cancel = schedule(() => resume(Effect.void))
        return Effect.sync(cancel)
      })
)

/**
 * A core op as the Effect it is on this face (every op the core yields was
 * made by this face), with the failures the caller knows it has.
 *
 * @since 0.1.0
 * @category constructors
 */
export const effect = <A, E = unknown>(op: Fx.Op<A>): Effect.Effect<A, E> => op as Effect.Effect<A, E>

/**
 * A core program as an Effect 3 effect, with the failures and requirements
 * the caller knows it has (the core does not type them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const run = <A, E = never, R = never>(program: () => Fx.Program<A>): Effect.Effect<A, E, R> =>
  Effect.gen(program as () => Generator<never, A, any>) as Effect.Effect<A, E, R>

/**
 * An `Either` as the shared core's result.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resultOf = <A, E>(either: Either.Either<A, E>): Result.Result<A, E> =>
  Either.isRight(either) ? { _tag: "Ok", value: either.right } : { _tag: "Err", error: either.left }

/**
 * Effect 3's `Fx`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fx: Fx.Fx = {
  gen: (program) => run(program),
  succeed: Effect.succeed,
  sync: Effect.sync,
  fail: Effect.fail,
  result: <A, E>(op: Fx.Op<A>) => Effect.map(Effect.either(effect<A, E>(op)), resultOf),
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
    const semaphore = Effect.unsafeMakeSemaphore(1)
    return (op) => semaphore.withPermits(1)(effect(op))
  },
  makeSignal: <A>() => {
    const signal = Deferred.unsafeMake<A, unknown>(FiberId.none)
    return {
      await: Deferred.await(signal),
      settle: (op: Fx.Op<A>) => Effect.onExit(effect(op), (exit) => Deferred.done(signal, exit))
    }
  },
  retryInterrupted: (op, retry) =>
    Effect.catchAllCause(
      effect(op),
      (cause) => Cause.isInterruptedOnly(cause) ? effect(retry()) : Effect.failCause(cause)
    )
}
