import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Http from "node:http"
import * as Api from "../../../../src/apps/http/HttpApi.js"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as Histories from "../../../support/Histories.js"
import { serve } from "../../../support/HttpTestServer.js"
import { effectProp } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

// Long enough that the server works on it for far more than a slice: decoding, the checkpoint, the reports, the answer.
const large = Histories.toOpenAiChat(Generated.fromTurns(
  Array.from({ length: 700 }, (_, i) => ({
    user: `request ${i}: please fix the parser cache and rerun the tests of module ${i % 40}`,
    steps: [[
      {
        name: "bash",
        args: JSON.stringify({ command: `npm test -- mod${i % 40}` }),
        result: `<returncode>${i % 3 === 0 ? 1 : 0}</returncode>\n<output>\n${
          "ok line of output\n".repeat(20)
        }</output>`
      }
    ]],
    reply: `The fix of step ${i} is in place.`,
    accept: false
  }))
))

/** A request over node:http; resolves with its status when its answer has been read to the end. */
const request = (base: string, method: "GET" | "POST", path: string, body?: Buffer, onSent?: () => void) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(path, base)
    const outgoing = Http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname,
        agent: false,
        headers: body === undefined ? {} : { "content-type": "application/json", "content-length": body.length }
      },
      (response) => {
        response.resume()
        response.on("end", () => resolve(response.statusCode ?? 0))
        response.on("error", reject)
      }
    )
    outgoing.on("error", reject)
    if (onSent !== undefined) outgoing.on("finish", onSent)
    outgoing.end(body)
  })

describe("a responsive server", () => {
  it.scopedLive("another request is answered while a large compaction is in flight: the GET sent after the POST's body is answered before the POST", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const body = Buffer.from(JSON.stringify({ transcript: large, format: "openai", window: 16_000 }))
      const order = yield* Effect.promise(() => {
        const answered: Array<string> = []
        let asked: Promise<void> | undefined
        const compacted = request(base, "POST", "/v1/compact", body, () => {
          // The whole body is sent: the server is reading it, or already compacting.
          asked = request(base, "GET", "/v1/settings/compaction").then((status) => void answered.push(`GET ${status}`))
        }).then((status) => void answered.push(`POST ${status}`))
        return compacted.then(() => asked).then(() => answered)
      })
      assert.deepStrictEqual(order, ["GET 200", "POST 200"])
    }))
})

// Bodies of /v1/compact whose transcript is of any kind, beside fields valid or not.
const body = fc.record({
  transcript: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    fc.constant({ ["__proto__"]: [1] })
  ),
  window: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.string({ maxLength: 3 })),
  format: fc.constantFrom("auto", "openai", "bogus"),
  attended: fc.oneof(fc.boolean(), fc.constant("yes"))
}, { requiredKeys: [] })

const read = (text: string, checkedByKind: boolean) =>
  Compat.result(
    Server.exactPayload(Api.CompactRequest, {
      verbatim: ["transcript"],
      ...(checkedByKind ? { checkedByKind: ["transcript"] } : {})
    })(
      HttpCompat.HttpServerRequest.fromWeb(new Request("http://localhost/v1/compact", { method: "POST", body: text }))
    )
  )

describe("exactPayload", () => {
  effectProp(
    "checking the transcript by its kind reads every body as checking it whole does: the same payload, the same error",
    [body],
    ([value]) =>
      Effect.gen(function*() {
        const text = JSON.stringify(value)
        const byKind = yield* read(text, true)
        const whole = yield* read(text, false)
        assert.deepStrictEqual(byKind, whole)
      }),
    { fastCheck: { numRuns: 60 } }
  )
})

describe("the answer of a compaction", () => {
  it.scopedLive("written in steps, it is the text exactJsonResponse writes of the same result in one piece", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const text = yield* Effect.promise(async () => {
        const response = await fetch(`${base}/v1/compact`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ transcript: Histories.toOpenAiChat(Generated.longSession), window: 8_000 })
        })
        assert.strictEqual(response.status, 200)
        return response.text()
      })
      const result = Schema.decodeUnknownSync(Api.CompactResult)(JSON.parse(text))
      assert.isNotNull(result.report.compacted)
      const response = yield* Server.exactJsonResponse(Api.CompactResult, result, { jsonFields: ["output"] })
      const written = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : undefined
      assert.strictEqual(written, text)
    }))
})
