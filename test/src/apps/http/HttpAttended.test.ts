/**
 * `POST /v1/compact` beyond the trigger: attended compactions and their
 * questions (`POST /v1/questions/{id}`), the main model's overflow
 * (`"cause": "overflow"`) and the provider's reported context tokens, over a
 * real socket.
 */
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { post, serve } from "../../../support/HttpTestServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<Record<string, unknown>> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

/** The offline summariser after `failures` calls that fail as an unavailable server does. */
const failingFirst = (failures: number) => {
  let calls = 0
  const layer = Layer.effect(
    Summarizer.Summarizer,
    Effect.map(Summarizer.Summarizer, (offline) => ({
      summarize: (request: Summarizer.SummaryRequest) =>
        Effect.suspend(() =>
          ++calls <= failures
            ? Effect.fail(
              new Summarizer.SummarizerError({ reason: "unavailable", message: `scripted failure ${calls}` })
            )
            : offline.summarize(request)
        )
    }))
  ).pipe(Layer.provide(SummarizerOffline.layer))
  return { layer, calls: () => calls }
}

describe("attended compaction", () => {
  it.scopedLive("after two failures the request answers 202 with the question; Retry gives the summary's result", () =>
    Effect.gen(function*() {
      const summarizer = failingFirst(2)
      const { base } = yield* serve({ summarizer: summarizer.layer })
      const asked = yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "attended", attended: true })
      assert.strictEqual(asked.status, 202, JSON.stringify(asked.body))
      const question = asked.body
      assert.deepStrictEqual(question.choices, ["retry", "trim"])
      assert.strictEqual(question.sessionId, "attended")
      assert.include(question.problem, "scripted failure 2")
      assert.strictEqual(question.answerPath, `/v1/questions/${question.id}`)
      assert.isAbove(Date.parse(question.expiresAt), Date.now())
      assert.strictEqual(summarizer.calls(), 2)

      const answered = yield* post(`${base}${question.answerPath}`, { choice: "retry" })
      assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
      const compacted = answered.body.report.compacted
      assert.strictEqual(compacted.fallback, "none")
      assert.strictEqual(compacted.summarizerCalls, 3)
      assert.deepStrictEqual(compacted.gate, ["summarizer: unavailable", "summarizer: unavailable", "passed"])
      assert.strictEqual(summarizer.calls(), 3)

      const again = yield* post(`${base}${question.answerPath}`, { choice: "trim" })
      assert.strictEqual(again.status, 404)
      assert.strictEqual(again.body._tag, "QuestionNotFound")
    }))

  it.scopedLive("Trim answers with the trimmed result and no further summariser call; a Retry that fails again asks again", () =>
    Effect.gen(function*() {
      const summarizer = failingFirst(3)
      const { base } = yield* serve({ summarizer: summarizer.layer })
      const first = yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "trim", attended: true })
      assert.strictEqual(first.status, 202)
      const second = yield* post(`${base}${first.body.answerPath}`, { choice: "retry" })
      assert.strictEqual(second.status, 202, "the third call failed too: asked again")
      assert.notStrictEqual(second.body.id, first.body.id)
      const trimmed = yield* post(`${base}${second.body.answerPath}`, { choice: "trim" })
      assert.strictEqual(trimmed.status, 200)
      assert.strictEqual(trimmed.body.report.compacted.fallback, "trim")
      // The report says why: the summariser's last failure.
      assert.match(trimmed.body.report.compacted.fallbackReason, /^the summariser failed \(/)
      assert.strictEqual(summarizer.calls(), 3)
    }))

  it.scopedLive("without attended, the same failures trim at once (200); a question not answered in time is Trim and its id is gone", () =>
    Effect.gen(function*() {
      const summarizer = failingFirst(4)
      const { base } = yield* serve({ summarizer: summarizer.layer, questionTimeout: "300 millis" })
      const unattended = yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "unattended" })
      assert.strictEqual(unattended.status, 200)
      assert.strictEqual(unattended.body.report.compacted.fallback, "trim")
      const asked = yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "late", attended: true })
      assert.strictEqual(asked.status, 202)
      yield* Effect.sleep("600 millis")
      const late = yield* post(`${base}${asked.body.answerPath}`, { choice: "retry" })
      assert.strictEqual(late.status, 404)
      // The compaction went on as Trim: the session's block is in the next view.
      const next = yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "late" })
      assert.isTrue(next.body.view.some((message: any) => message.role === "compacted"))
      assert.strictEqual(summarizer.calls(), 4)
    }))

  it.scopedLive("an answer that is neither retry nor trim gets 400, and an unknown question 404", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const bad = yield* post(`${base}/v1/questions/question-x`, { choice: "maybe" })
      assert.strictEqual(bad.status, 400)
      const unknown = yield* post(`${base}/v1/questions/question-x`, { choice: "trim" })
      assert.strictEqual(unknown.status, 404)
      assert.include(unknown.body.message, "question-x")
    }))
})

describe("overflow and reported tokens", () => {
  const short = session.slice(0, 40)

  it.scopedLive("cause overflow compacts a transcript under the trigger, believing the limit the provider's error names", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const quiet = yield* post(`${base}/v1/compact`, { transcript: short, sessionId: "quiet" })
      assert.isNull(quiet.body.report.compacted)
      const overflowError = {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: `prompt is too long: ${quiet.body.report.tokensAfter * 2} tokens > 100000 maximum`
        }
      }
      const answer = yield* post(`${base}/v1/compact`, {
        transcript: short,
        sessionId: "overflow",
        cause: "overflow",
        overflowError
      })
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
      const report = answer.body.report
      assert.strictEqual(report.compacted.cause, "overflow")
      assert.deepStrictEqual(report.overflow, {
        provider: "anthropic",
        limit: 100_000,
        promptTokens: quiet.body.report.tokensAfter * 2,
        message: overflowError.error.message
      })
      assert.isBelow(report.tokensAfter, quiet.body.report.tokensAfter)
    }))

  it.scopedLive("reportedContextTokens past the trigger compacts; under it, a transcript is left as it is", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const reported = yield* post(`${base}/v1/compact`, {
        transcript: short,
        sessionId: "reported",
        reportedContextTokens: 120_000
      })
      assert.strictEqual(reported.body.report.compacted.tokensBefore, 120_000)
      const under = yield* post(`${base}/v1/compact`, {
        transcript: session,
        sessionId: "under",
        window: 128_000,
        reportedContextTokens: 10_000
      })
      assert.isNull(under.body.report.compacted)
      assert.strictEqual(under.body.report.tokensAfter, 10_000)
      const refused = yield* post(`${base}/v1/compact`, { transcript: short, reportedContextTokens: -1 })
      assert.strictEqual(refused.status, 400)
    }))
})
