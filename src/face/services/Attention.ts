/**
 * Whether a person is attending the session, and their choice when the
 * summariser has failed twice (SPEC R2.7): retry, or trim the oldest 10 %.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"

/**
 * The choice offered after a failed retry.
 *
 * @since 0.1.0
 * @category models
 */
export const Choice = Compat.Literals(["retry", "trim"])

/**
 * @since 0.1.0
 * @category models
 */
export type Choice = typeof Choice.Type

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Whether someone can be asked now. */
  readonly attended: Effect.Effect<boolean>
  /** Asks the attended user to choose; `problem` says what failed. */
  readonly choose: (problem: string) => Effect.Effect<Choice>
}

/**
 * The attention service.
 *
 * @example
 * ```ts
 * import { Attention } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 *
 * // Asked when the summariser failed twice: retry it, or trim the history without a summary.
 * const askUser = Layer.succeed(
 *   Attention.Attention,
 *   Attention.Attention.of({
 *     attended: Effect.succeed(true),
 *     choose: (problem) => Effect.succeed<Attention.Choice>(problem.includes("timed out") ? "retry" : "trim")
 *   })
 * )
 *
 * const choice = Effect.flatMap(Attention.Attention, (attention) => attention.choose("the summariser timed out"))
 * assert.strictEqual(await Effect.runPromise(Effect.provide(choice, askUser)), "retry")
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Attention extends Compat.Service<Attention, Service>()("context-compressor/Attention") {}
