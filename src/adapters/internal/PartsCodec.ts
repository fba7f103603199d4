/**
 * The Effect 3 face of the shared core's parts codec
 * (`internal/adapters/PartsCodec.ts`), for the @effect/ai `Prompt` adapter,
 * which stays on Effect 3: its part readers answer an `Either`, and its
 * decoder makes this face's transcript messages. The reading and writing are
 * the core's.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Core from "../../internal/adapters/PartsCodec.js"
import type * as CoreResult from "../../internal/Result.js"
import * as Steps from "../../internal/Steps.js"
import * as Transcript from "../../Transcript.js"

/**
 * A native message or part, as parsed.
 *
 * @since 0.1.0
 * @category models
 */
export type Native = Core.Native

/**
 * What decoding a document kept to write a view of it back.
 *
 * @since 0.1.0
 * @category models
 */
export type Decoding = Core.Decoding

/**
 * How a format writes its parts and messages.
 *
 * @since 0.1.0
 * @category models
 */
export type Vocabulary = Core.Vocabulary

/**
 * A tool call as a format's part holds it.
 *
 * @since 0.1.0
 * @category decoding
 */
export type CallRead = Core.CallRead

/**
 * A tool result as a format's part holds it.
 *
 * @since 0.1.0
 * @category decoding
 */
export type ResultRead = Core.ResultRead

/**
 * A document refused: the message at fault, when one is, and why.
 *
 * @since 0.1.0
 * @category decoding
 */
export type Refusal = Core.Refusal

/**
 * Reads one part of a type the format knows, as an `Either` (see the core's `PartReader`).
 *
 * @since 0.1.0
 * @category decoding
 */
export type PartReader<A> = (part: Native, where: string) => Either.Either<A, string>

/**
 * How a format's messages are read (the core's `Grammar`, its readers answering an `Either`).
 *
 * @since 0.1.0
 * @category decoding
 */
export interface Grammar
  extends Omit<Core.Grammar, "checkFields" | "checkWhole" | "user" | "assistant" | "toolCall" | "toolResult">
{
  readonly checkFields?: (message: Native) => Either.Either<unknown, string>
  readonly checkWhole?: (message: Native, index: number) => Either.Either<unknown, string>
  readonly user: ReadonlyMap<string, PartReader<string>>
  readonly assistant: ReadonlyMap<string, PartReader<string | undefined>>
  readonly toolCall: PartReader<CallRead>
  readonly toolResult: PartReader<ResultRead>
}

/** @since 0.1.0 */
export const emptyDecoding: Decoding = Core.emptyDecoding()

/** @since 0.1.0 */
export const isWhole: (decoding: Decoding, view: Transcript.Transcript) => boolean = Core.isWhole

/** @since 0.1.0 */
export const encodeMessages: (decoding: Decoding, view: Transcript.Transcript, build: Vocabulary) => Array<Native> =
  Core.encodeMessages

/** @since 0.1.0 */
export const isRecord: (value: unknown) => value is Native = Core.isRecord

/** @since 0.1.0 */
export const jsonText: (value: unknown) => string = Core.jsonText

/** @since 0.1.0 */
export const parseOrText: (text: string) => unknown = Core.parseOrText

/** @since 0.1.0 */
export const describe: (value: unknown) => string = Core.describe

const fromEither = <A>(either: Either.Either<A, string>): CoreResult.Result<A, string> =>
  Either.isRight(either) ? { _tag: "Ok", value: either.right } : { _tag: "Err", error: either.left }

const reader = <A>(read: PartReader<A>): Core.PartReader<A> => (part, where) => fromEither(read(part, where))

const readers = <A>(map: ReadonlyMap<string, PartReader<A>>): ReadonlyMap<string, Core.PartReader<A>> =>
  new Map(Array.from(map, ([type, read]) => [type, reader(read)]))

/**
 * The decoder of a format's messages (the core's `messagesDecoder` with this
 * face's kit), answering an `Either`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const messagesDecoder = (
  grammar: Grammar
): (messages: ReadonlyArray<unknown>) => Steps.Steps<Either.Either<Decoding, Refusal>> => {
  const { checkFields, checkWhole } = grammar
  const decode = Core.messagesDecoder({
    messageName: grammar.messageName,
    contentExpected: grammar.contentExpected,
    ...(checkFields === undefined ? {} : { checkFields: (message) => fromEither(checkFields(message)) }),
    ...(checkWhole === undefined ? {} : { checkWhole: (message, index) => fromEither(checkWhole(message, index)) }),
    user: readers(grammar.user),
    userHolds: grammar.userHolds,
    assistant: readers(grammar.assistant),
    assistantHolds: grammar.assistantHolds,
    toolCall: reader(grammar.toolCall),
    toolResult: reader(grammar.toolResult)
  }, Transcript.kit)
  return function*(messages) {
    const decoded = yield* decode(messages)
    return decoded._tag === "Ok" ? Either.right(decoded.value) : Either.left(decoded.error)
  }
}
