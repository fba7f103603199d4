/**
 * What the compaction-state stores decide: the compare-and-set rule of a versioned save, the
 * number a BIGINT column holds, and the wording of their failures, the same
 * in every store of both faces; and the codec the memory and SQL stores
 * keep a state's JSON with.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/**
 * Whether a versioned save replaces the stored state: always when the
 * session has none, else only when the stored state is the one the saver
 * started from (its `compactions` is `expected`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const saves = (stored: { readonly compactions: number } | undefined, expected: number): boolean =>
  stored === undefined || stored.compactions === expected

/**
 * A number as a BIGINT column holds it: an integer within the safe range.
 * The columns beside a stored JSON are for people reading the table; the JSON is the state.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bigintColumn = (value: number): number =>
  Math.min(Math.max(Math.trunc(value), Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER)

/**
 * The reason of a state refused at save: it would not decode from its own JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export const notEncodable = (detail: string): string => `state does not survive encoding: ${detail}`

/**
 * The reason of a stored state that does not decode, `where` the store when it names one.
 *
 * @since 0.1.0
 * @category errors
 */
export const notDecodable = (detail: string, where?: string): string =>
  where === undefined
    ? `stored state does not decode: ${detail}`
    : `stored state in ${where} does not decode: ${detail}`

/**
 * What a face gives a store of its values: a state's JSON and its decoding
 * (each failing with an error whose `message` says why), the face's
 * `StoreError`, and the outcomes of a versioned save.
 *
 * @since 0.1.0
 * @category models
 */
export interface Codec<State, Outcome, E> {
  readonly encode: (state: State) => Effect.Effect<string, { readonly message: string }>
  readonly decode: (sessionId: string, text: string) => Effect.Effect<State, { readonly message: string }>
  readonly error: (sessionId: string, reason: string) => E
  readonly saved: () => Outcome
  readonly conflict: (current: State) => Outcome
}

/**
 * A state's JSON, refused with the face's `StoreError` ({@link notEncodable})
 * when the state would not decode from it (a persistent store would lose it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const encodeState = <State extends { readonly sessionId: string }, Outcome, E>(
  codec: Codec<State, Outcome, E>,
  state: State
): Effect.Effect<string, E> =>
  Effect.mapError(codec.encode(state), (error) => codec.error(state.sessionId, notEncodable(error.message)))

/**
 * A stored text's state, or the face's `StoreError` ({@link notDecodable},
 * naming `where` when given) when it does not decode.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decodeState = <State, Outcome, E>(
  codec: Codec<State, Outcome, E>,
  sessionId: string,
  text: string,
  where?: string
): Effect.Effect<State, E> =>
  Effect.mapError(codec.decode(sessionId, text), (error) => codec.error(sessionId, notDecodable(error.message, where)))
