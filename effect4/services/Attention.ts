/**
 * Whether a person is attending the session, and their choice when the
 * summariser has failed twice: retry, or trim the oldest 10 %. Effect 4 face.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The choice offered after a failed retry.
 *
 * @since 0.1.0
 * @category models
 */
export const Choice = Schema.Literals(["retry", "trim"])

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
 * @since 0.1.0
 * @category tags
 */
export class Attention extends Context.Service<Attention, Service>()("context-compressor/Attention") {}

/**
 * An attention service from its two operations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (service: Service): Service => Attention.of(service)
