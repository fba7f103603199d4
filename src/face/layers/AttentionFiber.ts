/**
 * Attention chosen by the fiber that compacts, for a server where each
 * request brings its own (`POST /v1/compact` with `"attended": true`): inside
 * `attend(service)(effect)` the engine asks `service`; anywhere else the
 * session is unattended and trims without asking.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Attention from "../services/Attention.js"
import * as AttentionUnattended from "./AttentionUnattended.js"

/**
 * The attention of the current fiber (and the fibers it forks); none: unattended.
 *
 * @since 0.1.0
 * @category fiber refs
 */
export const currentAttention: Compat.FiberLocal<Option.Option<Attention.Service>> = Compat.makeFiberLocalUnsafe(
  "context-compressor/layers/AttentionFiber/currentAttention",
  (): Option.Option<Attention.Service> => Option.none()
)

/**
 * Runs `effect` attended by `service`: a compaction in it that needs a
 * choice asks `service`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const attend =
  (service: Attention.Service) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Compat.locally(effect, currentAttention, Option.some(service))

/**
 * Attention that reads the current fiber's, or none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const service: Attention.Service = Attention.Attention.of({
  attended: Effect.flatMap(
    Compat.getFiberLocal(currentAttention),
    Option.match({ onNone: () => Effect.succeed(false), onSome: (attention) => attention.attended })
  ),
  choose: (problem) =>
    Effect.flatMap(
      Compat.getFiberLocal(currentAttention),
      Option.match({
        onNone: () => AttentionUnattended.unattended.choose(problem),
        onSome: (attention) => attention.choose(problem)
      })
    )
})

/**
 * Provides `Attention` decided by each compacting fiber (`attend`); unattended by default.
 *
 * @example
 * ```ts
 * import { AttentionFiber } from "context-compressor/layers"
 * import { Attention } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // A server whose requests each bring their own attention: attended inside `attend`, unattended elsewhere.
 * const user = Attention.Attention.of({ attended: Effect.succeed(true), choose: () => Effect.succeed("retry") })
 * const attended = AttentionFiber.attend(user)
 * const isAttended = Effect.flatMap(Attention.Attention, (attention) => attention.attended)
 *
 * const [inside, outside] = await Effect.runPromise(
 *   Effect.all([attended(isAttended), isAttended]).pipe(Effect.provide(AttentionFiber.layer))
 * )
 * assert.deepStrictEqual([inside, outside], [true, false])
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Attention.Attention> = Layer.succeed(Attention.Attention, service)
