/**
 * Results shared while in flight: the summaries several checkpoints ask for
 * at once are made once (`SummaryOutcome`), the others waiting on the
 * maker's `Deferred`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"

/**
 * The effect of a key asked for while another is making it waits for that
 * one and gives `whenShared` of its value (the same failure); when the maker
 * was interrupted, the waiter makes it itself.
 *
 * @since 0.1.0
 * @category models
 */
export type InFlight<A, E> = (
  key: string,
  make: () => Effect.Effect<A, E>,
  whenShared: (value: A) => A
) => Effect.Effect<A, E>

/**
 * An empty set of results in flight.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A, E>(): InFlight<A, E> => {
  const running = new Map<string, Deferred.Deferred<A, E>>()
  const once: InFlight<A, E> = (key, make, whenShared) =>
    Effect.suspend(() => {
      const made = running.get(key)
      if (made !== undefined) {
        return Compat.catchCause(
          Effect.map(Deferred.await(made), whenShared),
          // The effect making it was interrupted (not this fiber): this one makes it instead.
          (cause) => Compat.hasInterruptsOnly(cause) ? once(key, make, whenShared) : Effect.failCause(cause)
        )
      }
      // Made and registered in the same step as the lookup above, so no second asker slips in between.
      const making = Compat.makeDeferredUnsafe<A, E>()
      running.set(key, making)
      return Effect.onExit(
        Effect.ensuring(make(), Effect.sync(() => running.delete(key))),
        (exit) => Deferred.done(making, exit)
      )
    })
  return once
}
