import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Json from "../../../../src/face/models/Json.js"
import { serve } from "../../../support/HttpTestServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const sessionText = Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")

/** What any answer must never hold: the exact reader's placeholder, whole or in part. */
const placeholderTrace = /context-compressor:number:/

/** A POST of a body given as text (the numbers in it written as they are). */
const postText = (url: string, body: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })
    return { status: response.status, text: await response.text() }
  })

/** The answer read exactly: every number as its literal. */
const exactly = (text: string): any => TestCompat.getOrThrow(Json.parseExactly(text))

/** The literals a double cannot carry through `JSON.parse` and `JSON.stringify` unchanged. */
const literals = [
  "123456789012345678901234567890",
  "-98765432109876543210",
  "9007199254740993",
  "1e400",
  "-1e400",
  "1e-400",
  "-0",
  "-0.0",
  "0.1000000000000000055511151231257827",
  "3.14159265358979323846264338327950288"
]
const extra = `{"ids":[${literals.join(",")}],"seed":${literals[0]},"nested":{"zero":-0,"tiny":1e-400}}`

describe("exact numbers over HTTP", () => {
  it.scopedLive("POST /v1/compact gives back a message's extra field with every literal as written, whether the transcript is sent parsed or as text", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const transcript =
        `[{"role":"system","content":"be brief"},{"role":"user","content":"hi","x_meta":${extra}},{"role":"assistant","content":"hello","x_usage":{"cost":0.1000000000000000055511151231257827}}]`
      const parsed = yield* postText(`${base}/v1/compact`, `{"transcript":${transcript}}`)
      assert.strictEqual(parsed.status, 200, parsed.text)
      assert.notMatch(parsed.text, placeholderTrace)
      assert.strictEqual(Json.stringify(exactly(parsed.text).output), transcript)
      // The platform's JSON.parse would have rounded these: the answer's text holds them as written.
      for (const literal of literals) assert.include(parsed.text, literal)
      const asText = yield* postText(`${base}/v1/compact`, JSON.stringify({ transcript }))
      assert.strictEqual(asText.status, 200, asText.text)
      assert.notMatch(asText.text, placeholderTrace)
      assert.strictEqual(Json.stringify(exactly(asText.text).output), transcript)
    }))

  it.scopedLive("a compaction keeps the kept messages' numbers exactly, and nothing of the answer or the event stream holds a placeholder", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ keepAliveMs: 60_000 })
      const session: Array<Record<string, unknown>> = JSON.parse(sessionText)
      // Exact numbers early (compacted away) and late (kept in the view).
      const texts = session.map((message) => JSON.stringify(message))
      const withNumbers = (text: string) => `${text.slice(0, -1)},"x_meta":${extra}}`
      texts[1] = withNumbers(texts[1]!)
      texts[texts.length - 1] = withNumbers(texts[texts.length - 1]!)
      const controller = new AbortController()
      yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
      const events = yield* Effect.promise(() => fetch(`${base}/v1/events`, { signal: controller.signal }))
      const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader()
      let stream = ""
      while (!stream.includes("event: ready")) stream += (yield* Effect.promise(() => reader.read())).value ?? ""
      const answer = yield* postText(`${base}/v1/compact`, `{"transcript":[${texts.join(",")}],"sessionId":"exact"}`)
      assert.strictEqual(answer.status, 200, answer.text.slice(0, 500))
      assert.notMatch(answer.text, placeholderTrace)
      const body = exactly(answer.text)
      assert.isNotNull(body.report.compacted)
      const last = body.output[body.output.length - 1]
      assert.strictEqual(Json.stringify(last), texts[texts.length - 1])
      while (!stream.includes("event: compacted")) stream += (yield* Effect.promise(() => reader.read())).value ?? ""
      assert.notMatch(stream, placeholderTrace)
    }))

  it.scopedLive("POST /v1/reduce keeps a 30-digit integer, 1e400, -0 and long decimals of an envelope, in its value and its text", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const envelope =
        `{"protocol":"agentic-workspace/v1","tool":"workspace_command","action":"status","ok":true,"summary":"job done","data":{"job":{"id":"job_1","status":"done","exitCode":0,"startedAt":"2025-01-02T00:00:00Z","bytes":${
          literals[0]
        }},"extra":${extra}},"retention":{"importance":"high","facts":["seed ${literals[0]}"]}}`
      const answer = yield* postText(`${base}/v1/reduce`, `{"envelope":${envelope}}`)
      assert.strictEqual(answer.status, 200, answer.text)
      assert.notMatch(answer.text, placeholderTrace)
      const body = exactly(answer.text)
      assert.strictEqual(Json.stringify(body.value.data.job.bytes), literals[0])
      assert.strictEqual(Json.stringify(body.value.data.extra), extra)
      assert.include(body.text, `"bytes":${literals[0]}`)
      const bare = yield* postText(`${base}/v1/reduce`, `{"envelope":1e400}`)
      assert.strictEqual(bare.status, 200, bare.text)
      assert.notMatch(bare.text, placeholderTrace)
      assert.strictEqual(exactly(bare.text).text, "1e400")
    }))

  it.scopedLive("an exact number where the request wants another kind is refused by name, with no placeholder in the error", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      for (
        const [path, body] of [
          ["/v1/reduce", `{"envelope":{},"cap":1e400}`],
          ["/v1/compact", `{"transcript":"[]","window":123456789012345678901234567890}`],
          ["/v1/compact", `{"transcript":[{"role":"user","content":"hi"}],"reportedContextTokens":-0}`]
        ] as const
      ) {
        const answer = yield* postText(`${base}${path}`, body)
        assert.strictEqual(answer.status, 400, answer.text)
        assert.notMatch(answer.text, placeholderTrace, body)
      }
      const refused = yield* postText(`${base}/v1/reduce`, `{"envelope":{},"cap":1e400}`)
      // Effect 3's decode message names the refused value (the placeholder written back as its literal); Effect 4's names none.
      if (TestCompat.major === 3) assert.include(JSON.parse(refused.text).issues[0].message, "1e400")
      // A number where a message needs text is refused as any number is (with plain JSON.parse it would be Infinity), not read as the text "1e400".
      for (const format of ["openai", "auto"]) {
        const asContent = yield* postText(
          `${base}/v1/compact`,
          `{"transcript":[{"role":"user","content":"hi"},{"role":"user","content":1e400}],"format":"${format}"}`
        )
        assert.strictEqual(asContent.status, 400, asContent.text)
        assert.notMatch(asContent.text, placeholderTrace)
        const error = JSON.parse(asContent.text)
        assert.strictEqual(error._tag, "InvalidTranscript")
        assert.strictEqual(error.index, 1)
      }
      const broken = yield* postText(`${base}/v1/reduce`, `{"envelope":[1e400,}`)
      assert.strictEqual(broken.status, 400)
      assert.strictEqual(JSON.parse(broken.text)._tag, "InvalidJson")
    }))

  // JSON text whose every number is written as Json.stringify writes it back: canonical doubles, and literals kept as placeholders.
  const digits = (min: number, max: number) =>
    fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((ds) => ds.join(""))
  const numberText = fc.oneof(
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
    fc.tuple(fc.boolean(), fc.bigInt({ min: 2n ** 60n, max: 10n ** 40n })).map(([negative, n]) =>
      `${negative ? "-" : ""}${n}`
    ),
    fc.tuple(
      fc.constantFrom("", "-"),
      fc.integer({ min: 1, max: 9 }),
      fc.constantFrom("e", "E", "e+", "e-"),
      fc.integer({ min: 400, max: 9_999 })
    )
      .map(([sign, lead, e, exponent]) => `${sign}${lead}${e}${exponent}`),
    fc.tuple(fc.constantFrom("", "-"), fc.nat({ max: 1_000 }), digits(18, 30), fc.integer({ min: 1, max: 9 }))
      .map(([sign, whole, fraction, last]) => `${sign}${whole}.${fraction}${last}`),
    fc.constantFrom("-0", "-0.0", "-0e5", "0")
  )
  const objectKey = fc.oneof(
    fc.string({ maxLength: 8 }).filter((key) => !/^(?:0|[1-9]\d*)$/.test(key)),
    fc.constantFrom("__proto__", "constructor")
  )
  const { object: envelopeText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      numberText,
      fc.string({ maxLength: 12 }).map((text) => JSON.stringify(text)),
      fc.constantFrom("true", "false", "null"),
      tie("array"),
      tie("object")
    ),
    array: fc.array(tie("value"), { maxLength: 5 }).map((items) => `[${items.join(",")}]`),
    // Keys that are not array indices: a JavaScript object puts those first, whatever the text's order (JSON.parse as well).
    object: fc.uniqueArray(fc.tuple(objectKey, tie("value")), { selector: ([key]) => key, maxLength: 6 })
      .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`)
  }))

  it.scopedLive("property: POST /v1/reduce of JSON no policy changes gives it back exactly, every number literal included", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(envelopeText, async (envelope) => {
            const response = await fetch(`${base}/v1/reduce`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: `{"envelope":${envelope},"cap":1000000}`
            })
            const text = await response.text()
            assert.strictEqual(response.status, 200, text)
            assert.notMatch(text, placeholderTrace)
            const body = exactly(text)
            assert.strictEqual(Json.stringify(body.value), envelope)
            assert.strictEqual(body.text, envelope)
          }),
          { numRuns: 60 }
        )
      )
    }))
})
