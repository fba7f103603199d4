/**
 * `serve`'s sessions belong to a caller: `POST /v1/compact` scopes the session,
 * named or derived, by a digest of the request's `Authorization`, and a
 * question is answered by the caller whose compaction asked it only.
 */
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Session from "../../../../src/face/engine/Session.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { post, serve } from "../../../support/HttpTestServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<Record<string, unknown>> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

const opening = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Hello" },
  { role: "assistant", content: "Hi! How can I help?" }
]
const cardOfA = "My card is 4111-1111-1111-1111"
const questionOfB = "What is the capital of France?"
const asA = { authorization: "Bearer user-a" }
const asB = { authorization: "Bearer user-b" }

/** The summariser fails every call, so an attended compaction asks its question. */
const unavailable = Layer.succeed(Summarizer.Summarizer, {
  summarize: () => Effect.fail(new Summarizer.SummarizerError({ reason: "unavailable", message: "scripted failure" }))
}).pipe(Layer.provide(SummarizerOffline.layer))

describe("serve: sessions belong to a caller", () => {
  it.scopedLive("POST /v1/compact: two Authorization headers with the same opening each get their own view, derived or named", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      for (const sessionId of [undefined, "support-chat"]) {
        const compact = (headers: Record<string, string>, text: string) =>
          post(`${base}/v1/compact`, {
            transcript: [...opening, { role: "user", content: text }],
            format: "openai",
            ...(sessionId === undefined ? {} : { sessionId })
          }, headers)
        const a = yield* compact(asA, cardOfA)
        const b = yield* compact(asB, questionOfB)
        const againA = yield* compact(asA, cardOfA)
        for (
          const [answer, mine, theirs] of [[a, cardOfA, questionOfB], [b, questionOfB, cardOfA], [
            againA,
            cardOfA,
            questionOfB
          ]] as const
        ) {
          assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
          assert.include(JSON.stringify(answer.body.output), mine)
          assert.notInclude(JSON.stringify(answer.body.output), theirs)
        }
        assert.notStrictEqual(a.body.report.sessionId, b.body.report.sessionId)
        assert.strictEqual(againA.body.report.sessionId, a.body.report.sessionId)
        assert.isTrue(a.body.report.sessionId.startsWith(sessionId ?? Session.idPrefix))
      }
    }))

  it.scopedLive("POST /v1/compact: a caller may send back the session id its report gave; no other caller can name it", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const compact = (headers: Record<string, string>, text: string, sessionId?: string) =>
        post(`${base}/v1/compact`, {
          transcript: [...opening, { role: "user", content: text }],
          format: "openai",
          ...(sessionId === undefined ? {} : { sessionId })
        }, headers)
      const a = yield* compact(asA, cardOfA)
      const scopedOfA: string = a.body.report.sessionId
      const back = yield* compact(asA, cardOfA, scopedOfA)
      assert.strictEqual(back.body.report.sessionId, scopedOfA)
      for (const headers of [asB, {}]) {
        const other = yield* compact(headers, questionOfB, scopedOfA)
        assert.strictEqual(other.status, 200, JSON.stringify(other.body))
        assert.notStrictEqual(other.body.report.sessionId, scopedOfA)
        assert.notInclude(JSON.stringify(other.body), cardOfA)
      }
    }))

  it.scopedLive("without a credential the session stays as named or derived, as before", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const transcript = [...opening, { role: "user", content: cardOfA }]
      const named = yield* post(`${base}/v1/compact`, { transcript, sessionId: "plain" })
      assert.strictEqual(named.body.report.sessionId, "plain")
      const derived = yield* post(`${base}/v1/compact`, { transcript })
      assert.match(derived.body.report.sessionId, /^session-[0-9a-f]{16}$/)
    }))

  it.scopedLive("a question is answered by the caller whose compaction asked it: to another it is not there", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ summarizer: unavailable })
      const asked = yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "asked", attended: true }, asA)
      assert.strictEqual(asked.status, 202, JSON.stringify(asked.body))
      for (const headers of [asB, {}]) {
        const refused = yield* post(`${base}${asked.body.answerPath}`, { choice: "trim" }, headers)
        assert.strictEqual(refused.status, 404)
        assert.strictEqual(refused.body._tag, "QuestionNotFound")
      }
      const answered = yield* post(`${base}${asked.body.answerPath}`, { choice: "trim" }, asA)
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      assert.strictEqual(answered.body.report.sessionId, asked.body.sessionId)
    }))
})
