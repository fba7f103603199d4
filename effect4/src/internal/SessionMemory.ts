/**
 * The shared form of a session's memory on the Effect 4 face: its Schema and
 * the codec the shared core's session cache is made with (`SessionCache.make`),
 * as `src/internal/effect3/SessionMemory.ts` is on Effect 3. The same fields,
 * so workers of either face read each other's memory.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as SessionCache from "../../../src/internal/checkpoint/SessionCache.js"
import * as Transcript from "../Transcript.js"

/**
 * A message's fingerprint: its kind, id, text length and, when it has one, its content digest.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Fingerprint = Schema.Tuple([
  Schema.String,
  Schema.String,
  Schema.Number,
  Schema.optionalKey(Schema.String)
])

/**
 * A session's memory as the store keeps it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Memory = Schema.Struct({
  lastSent: Schema.optionalKey(Schema.Struct({ length: Schema.Number, tokens: Schema.Number })),
  compactedAt: Schema.Number,
  view: Schema.optionalKey(Schema.Struct({
    base: Schema.Array(Fingerprint),
    /** The view's messages that are not the base's at their position: `[position, message]`. */
    changed: Schema.Array(Schema.Tuple([Schema.Number, Transcript.Message]))
  }))
})

const MemoryJson = Schema.fromJsonString(Memory)
const encodeJson = Schema.encodeSync(MemoryJson)
const decodeJson = Schema.decodeUnknownExit(MemoryJson)
/**
 * The codec of a session's memory on this face.
 *
 * @since 0.1.0
 * @category codecs
 */
export const codec: SessionCache.MemoryCodec = {
  encode: (memory, digests) =>
    encodeJson(SessionCache.memoryOf(memory, Schema.encodeSync(Transcript.Message), digests)),
  decode: (text) => {
    if (text === "") return { _tag: "Ok", value: undefined }
    const decoded = decodeJson(text)
    return decoded._tag === "Success"
      ? { _tag: "Ok", value: decoded.value }
      : { _tag: "Err", error: String(decoded.cause) }
  }
}
