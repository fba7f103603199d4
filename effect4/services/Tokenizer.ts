/**
 * Counting tokens of text, so the engine knows how full the window is when
 * the provider did not say. Effect 4 face.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A name for reports: `chars/4`, `o200k_base`. */
  readonly name: string
  /** The number of tokens of a text. Pure: the engine caches it per message. */
  readonly count: (text: string) => number
}

/**
 * The tokenizer service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Tokenizer extends Context.Service<Tokenizer, Service>()("context-compressor/Tokenizer") {}

/**
 * A tokenizer from its name and its count.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (service: Service): Service => Tokenizer.of(service)
