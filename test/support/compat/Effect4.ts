/**
 * The Effect 4 side of the tests' compat (`#test-compat`): the same names as `Effect3.ts`, each
 * Effect 4's API. test-effect4's vitest plugin and tsconfig.json resolve `#test-compat` here.
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as TestClock from "effect/testing/TestClock"
import * as fc from "fast-check"
import * as EffectFx from "../../../effect4/src/internal/EffectFx.js"
import type * as Compat from "../../../src/compat/Effect4.js"
import * as Fx from "../../../src/internal/Fx.js"
import type * as Steps from "../../../src/internal/Steps.js"

/** The major of Effect the tests run on (typed as either, so a test may ask which). */
export const major: 3 | 4 = 4

/** The largest size a Schema's value is drawn at (Effect 4's Arbitrary grows its values with it). */
const maxSize = 40

/**
 * A fast-check arbitrary of a Schema's values. Effect 4 draws them with an engine of its own, not
 * fast-check: fast-check draws a seed and a size, Effect 4's `Arbitrary.schema` the value from them
 * (the same value for the same pair); fast-check shrinks towards size 0, which draws smaller values.
 */
export const arbitrary = <S extends Schema.Top>(schema: S): fc.Arbitrary<S["Type"]> => {
  const drawn = Arbitrary.schema(schema)
  return fc.tuple(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: maxSize })).map(([seed, size]) =>
    Effect.runSync(Arbitrary.sampleEffect(drawn, { count: 1, seed, size }))[0]!
  )
}

/** Whether a compat `Result` succeeded. */
export const isSuccess: <A, E>(result: Compat.Result<A, E>) => boolean = Result.isSuccess

/** Whether a compat `Result` failed. */
export const isFailure: <A, E>(result: Compat.Result<A, E>) => boolean = Result.isFailure

/** A compat `Result`'s value, or a throw. */
export const getOrThrow: <A, E>(result: Compat.Result<A, E>) => A = Result.getOrThrow

/** A compat `Result`'s value, or `orElse()`. */
export const getOrElse = <A, E, B>(result: Compat.Result<A, E>, orElse: () => B): A | B =>
  Result.getOrElse(result, orElse)

/** A compat `Result`'s error, if it failed. */
export const getFailure: <A, E>(result: Compat.Result<A, E>) => Option.Option<E> = Result.getFailure

/** Whether a cause is one defect and nothing else. */
export const isDieOnly = <E>(cause: Cause.Cause<E>): boolean =>
  cause.reasons.length === 1 && Cause.isDieReason(cause.reasons[0]!)

/** The core's steps run by the face's runner, giving the event loop a turn at every step. */
export const runPausing = <A>(steps: Steps.Steps<A>): Effect.Effect<A> =>
  EffectFx.run(() => Fx.run(steps, Fx.slice(EffectFx.fx, 0)))

/** Runs an effect in a fiber of its own, a child of the running one. */
export const forkChild = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<Fiber.Fiber<A, E>, never, R> =>
  Effect.forkChild(self)

/** Moves the test clock on by `duration`, running what was due by then. */
export const adjustClock = (duration: Compat.DurationInput): Effect.Effect<void> => TestClock.adjust(duration)
