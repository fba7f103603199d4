/**
 * The face's effects lent to the shared core (`Fx`): the checkpoint's
 * effectful stages, written once as programs over `Fx`, run on either
 * Effect through this, compiled for each (the differing APIs from `#compat`).
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
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
  Compat.schedulerIsSync,
  (sync) =>
    sync
      ? Compat.yieldNow
      : Compat.callback<void>((resume) => {
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
 * A core program as an effect, with the failures and requirements
 * the caller knows it has (the core does not type them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const run = <A, E = never, R = never>(program: () => Fx.Program<A>): Effect.Effect<A, E, R> =>
  Effect.gen(program as () => Generator<never, A, any>) as Effect.Effect<A, E, R>

/**
 * The face's result (`Either` on Effect 3, `Result` on Effect 4) as the shared core's.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resultOf = <A, E>(result: Compat.Result<A, E>): Result.Result<A, E> =>
  Compat.matchResult(result, {
    onSuccess: (value): Result.Result<A, E> => ({ _tag: "Ok", value }),
    onFailure: (error): Result.Result<A, E> => ({ _tag: "Err", error })
  })

/**
 * The face's `Fx`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fx: Fx.Fx = {
  gen: (program) => run(program),
  succeed: Effect.succeed,
  sync: Effect.sync,
  fail: Effect.fail,
  result: <A, E>(op: Fx.Op<A>) => Effect.map(Compat.result(effect<A, E>(op)), resultOf),
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
    const semaphore = Compat.makeSemaphoreUnsafe(1)
    return (op) => semaphore.withPermits(1)(effect(op))
  },
  makeSignal: <A>() => {
    const signal = Compat.makeDeferredUnsafe<A, unknown>()
    return {
      await: Deferred.await(signal),
      settle: (op: Fx.Op<A>) => Effect.onExit(effect(op), (exit) => Deferred.done(signal, exit))
    }
  },
  retryInterrupted: (op, retry) =>
    Compat.catchCause(
      effect(op),
      (cause) => Compat.hasInterruptsOnly(cause) ? effect(retry()) : Effect.failCause(cause)
    )
}
