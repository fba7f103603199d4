/**
 * Property tests over fast-check arbitraries, the same on Effect 3 and Effect 4: `prop` is
 * `it.prop` of @effect/vitest 0.x and `effectProp` its `it.effect.prop`, each property checked by
 * `fc.assert` with the options given as `fastCheck`. @effect/vitest 4's `it.prop` takes Effect 4's
 * own arbitraries and Schemas only (Effect 4 no longer carries fast-check), so a test of the root
 * suite that runs on both Effects (docs/effect4.md, "Tests on Effect 4") draws with fast-check, the
 * root's devDependency, and registers its properties here; a Schema's values are drawn by
 * `arbitrary` of `#test-compat`.
 */
import * as TestCompat from "#test-compat"
import { it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"

/** The values a list of arbitraries draws, one per arbitrary. */
export type Values<Arbs extends ReadonlyArray<fc.Arbitrary<unknown>>> = {
  -readonly [K in keyof Arbs]: Arbs[K] extends fc.Arbitrary<infer A> ? A : never
}

/** How a property is checked: fast-check's parameters (`numRuns`, `seed`, …). */
export interface Options {
  readonly fastCheck?: fc.Parameters<unknown>
}

/**
 * A test that `self` holds for the values the arbitraries draw: it returns nothing or `true`, and
 * throws no failed assertion.
 */
export const prop = <const Arbs extends ReadonlyArray<fc.Arbitrary<unknown>>>(
  name: string,
  arbitraries: Arbs,
  self: (values: Values<Arbs>) => boolean | void,
  options?: Options
): void =>
  it(name, () => {
    fc.assert(
      fc.property(...(arbitraries as unknown as [fc.Arbitrary<unknown>]), (...values) => self(values as Values<Arbs>)),
      options?.fastCheck
    )
  })

/** A test that the effect `self` makes of the values the arbitraries draw succeeds, each run to its end. */
export const effectProp = <const Arbs extends ReadonlyArray<fc.Arbitrary<unknown>>, A, E>(
  name: string,
  arbitraries: Arbs,
  self: (values: Values<Arbs>) => Effect.Effect<A, E>,
  options?: Options
): void =>
  it(name, async () => {
    await fc.assert(
      fc.asyncProperty(
        ...(arbitraries as unknown as [fc.Arbitrary<unknown>]),
        async (...values) => {
          await Effect.runPromise(self(values as Values<Arbs>))
        }
      ),
      options?.fastCheck
    )
  })

/** The part of a `layer` block's `it` (@effect/vitest's `layer`) that `layerProp` registers its test with. */
export interface LayerIt<R> {
  readonly effect: (name: string, self: () => Effect.Effect<void, never, R>) => void
}

/**
 * `effectProp` inside a `layer` block: every run of the property is given the services of the
 * block's layer, built once for the block, and runs on a test clock (#test-compat's `withTestClock`),
 * as @effect/vitest 0.x's `it.effect.prop` in a `layer` runs them.
 */
export const layerProp = <R>(blockIt: LayerIt<R>) =>
<const Arbs extends ReadonlyArray<fc.Arbitrary<unknown>>, A, E>(
  name: string,
  arbitraries: Arbs,
  self: (values: Values<Arbs>) => Effect.Effect<A, E, R>,
  options?: Options
): void =>
  blockIt.effect(name, () =>
    Effect.flatMap(Effect.context<R>(), (context) =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            ...(arbitraries as unknown as [fc.Arbitrary<unknown>]),
            async (...values) => {
              await Effect.runPromise(TestCompat.withTestClock(Effect.provide(self(values as Values<Arbs>), context)))
            }
          ),
          options?.fastCheck
        )
      )))
