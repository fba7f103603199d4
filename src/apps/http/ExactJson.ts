/**
 * Exact numbers on the HTTP API: a body read with `Json.parse` (integers
 * past 2^53 kept), a field checked by its kind only when asked, and an answer
 * written with `Json.stringify`, free of number placeholders, in slices.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import type { HttpServerRequest } from "#compat-http"
import { HttpServerResponse } from "#compat-http"
import * as Effect from "effect/Effect"
import * as JsonWrite from "../../core/json/JsonWrite.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as Cooperative from "../../face/engine/internal/Cooperative.js"
import * as JsonRead from "../../face/models/internal/JsonRead.js"
import * as Json from "../../face/models/Json.js"
import * as BodyLimits from "./BodyLimits.js"
import * as Api from "./HttpApi.js"

/** What a field the schema only checks by its kind is checked as: an array or an object of the same kind, empty. */
const standIn = (
  value: unknown
): unknown => (Array.isArray(value) ? [] : typeof value === "object" && value !== null ? {} : value)

/**
 * Reads a request's body with the project's exact JSON reader (`Json.parse`)
 * and decodes it with `schema`: an integer past 2^53, `1e400`, `-0` or a long
 * decimal is kept as written, where the platform's `JSON.parse` would round
 * it. Not JSON: `InvalidJson`; not the schema: the API's decode error, as the
 * other routes answer. An empty body is read as `null`, as the platform does.
 * The fields named in `verbatim` (JSON the schema only checks) are taken from
 * the body as parsed, not from the decoded copy. Of those, the ones named in
 * `checkedByKind` are fields whose schema takes any string, any array and any
 * object whatever they hold (a transcript): the schema checks an empty one of
 * the same kind, so that a 50,000-message transcript is not walked (and
 * copied) to find out. The exact reader pauses for the event loop every
 * `sliceMs` (default `Compactor.defaultSliceMs`); the platform's `JSON.parse`,
 * which a body without inexact numbers goes to, reads in one piece. A body
 * nested deeper than `BodyLimits.maxJsonDepth` is refused (`InvalidJson`, 400)
 * before it is read.
 *
 * @since 0.1.0
 * @category exact numbers
 */
export const exactPayload = <A, I>(
  schema: Compat.Codec<A, I>,
  options: {
    readonly verbatim?: ReadonlyArray<keyof A & string>
    readonly checkedByKind?: ReadonlyArray<keyof A & string>
    readonly sliceMs?: number
  } = {}
) =>
(request: HttpServerRequest.HttpServerRequest): Effect.Effect<A, Api.InvalidJson | Http.DecodeError> =>
  Effect.flatMap(
    Effect.orDie(request.text),
    (text): Effect.Effect<A, Api.InvalidJson | Http.DecodeError> => {
      const tooDeep = BodyLimits.depthRefusal(text)
      if (tooDeep !== undefined) return Effect.fail(new Api.InvalidJson({ message: tooDeep }))
      return Effect.flatMap(
        text === ""
          ? Effect.succeed(Compat.Result.succeed(null))
          : Cooperative.run(JsonRead.parseSteps(text), Cooperative.slice(options.sliceMs ?? Compactor.defaultSliceMs)),
        (parsed): Effect.Effect<A, Api.InvalidJson | Http.DecodeError> => {
          if (Http.isFailure(parsed)) {
            return Effect.fail(
              new Api.InvalidJson({ message: `the body is not valid JSON: ${Http.failureOf(parsed).reason}` })
            )
          }
          const body = Http.successOf(parsed)
          const byKind = (options.checkedByKind ?? []).filter((key) => Json.getOwn(body, key) !== undefined)
          let checked: unknown = body
          if (byKind.length > 0) {
            const copy = { ...(body as Record<string, unknown>) }
            for (const key of byKind) Json.setOwn(copy, key, standIn(Json.getOwn(body, key)))
            checked = copy
          }
          return Compat.decodeUnknownEffect(schema)(checked).pipe(
            Compat.catch(Http.refailDecodeError),
            // The decoded copy of a record loses a `__proto__` key: a field that is JSON as sent is taken from the body itself.
            Effect.map((decoded) => {
              const fields = (options.verbatim ?? []).filter((key) => Json.getOwn(body, key) !== undefined)
              if (fields.length === 0) return decoded
              const out = { ...decoded } as Record<string, unknown>
              for (const key of fields) out[key] = Json.getOwn(body, key)
              return out as A
            })
          )
        }
      )
    }
  )

/** Every string of an encoded answer with no placeholder left: a whole one becomes the literal's text. */
const scrubStrings = (value: unknown): unknown => {
  if (typeof value === "string") return Json.rawNumberLiteral(value) ?? Json.withoutRawNumbers(value)
  if (Array.isArray(value)) return value.map(scrubStrings)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) Json.setOwn(out, key, scrubStrings((value as Record<string, unknown>)[key]))
  return out
}

/** The text of an encoded answer (see {@link exactJsonResponse}), in steps: a long array is scrubbed and written element by element. */
function* answerText(encoded: Record<string, unknown>, jsonFields: ReadonlySet<string>): Cooperative.Steps<string> {
  const answer: Record<string, unknown> = {}
  for (const key of Object.keys(encoded)) {
    const value = encoded[key]
    if (jsonFields.has(key) || !Array.isArray(value)) {
      Json.setOwn(answer, key, jsonFields.has(key) ? value : scrubStrings(value))
      continue
    }
    Json.setOwn(answer, key, yield* Cooperative.mapSteps(value, scrubStrings))
  }
  return Json.withoutRawNumbers(yield* JsonWrite.stringifySteps(answer))
}

/**
 * An encoded answer written as JSON (see {@link exactJsonResponse}), pausing
 * for the event loop every slice.
 *
 * @since 0.1.0
 * @category exact numbers
 */
export const exactAnswer = (
  encoded: Cooperative.Steps<Record<string, unknown>>,
  options: { readonly status?: number; readonly jsonFields?: ReadonlyArray<string>; readonly sliceMs?: number }
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.suspend(() => {
    const jsonFields = new Set(options.jsonFields ?? [])
    const text = (function*() {
      return yield* answerText(yield* encoded, jsonFields)
    })()
    return Effect.map(
      Cooperative.run(text, Cooperative.slice(options.sliceMs ?? Compactor.defaultSliceMs)),
      (body) => HttpServerResponse.text(body, { status: options.status ?? 200, contentType: "application/json" })
    )
  })

/**
 * A JSON answer encoded with `schema` and written with `Json.stringify`: in
 * the fields named in `jsonFields` (a transcript, an envelope: JSON as the
 * request sent it) every number kept exactly comes back as its literal; in
 * the other fields (texts, reports) a placeholder becomes the literal's text,
 * so that a string stays a string; and no placeholder is left anywhere
 * (`Json.withoutRawNumbers`). For the answers of the routes that read their
 * body with {@link exactPayload}. A long array of the answer is scrubbed and
 * written element by element (`JsonWrite.stringifySteps`), pausing for the event
 * loop every `sliceMs` (default `Compactor.defaultSliceMs`).
 *
 * @since 0.1.0
 * @category exact numbers
 */
export const exactJsonResponse = <A, I>(
  schema: Compat.Codec<A, I>,
  value: A,
  options: { readonly status?: number; readonly jsonFields?: ReadonlyArray<string>; readonly sliceMs?: number } = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.flatMap(Effect.orDie(Compat.encodeEffect(schema)(value)), (encoded) =>
    exactAnswer(
      (function*() {
        return encoded as Record<string, unknown>
      })(),
      options
    ))
