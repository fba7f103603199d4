import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as ViewCheck from "../../../../src/face/engine/ViewCheck.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import { hasTranscripts, loadTranscripts } from "../../../openai.js"

const contextWindow = 16_000
const settings = SettingsFixed.settings({ replyReserveTokens: 1_000 })

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 1_000 } }))
)

const tokens = (message: Transcript.Message) => TokenizerApprox.count(Transcript.text(message)) + 4

describe.skipIf(!hasTranscripts())("Compactor over the recorded agent transcripts (../shared/transcripts)", () => {
  for (const { name, transcript } of hasTranscripts() ? loadTranscripts() : []) {
    it.effect(`${name}: compacts several times with a ${contextWindow}-token window, every view passing the invariant check`, () =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const before = JSON.stringify(transcript)
        const trigger = Budget.trigger(settings, contextWindow)
        const reports: Array<Compactor.Compacted> = []
        // A checkpoint at the top of every iteration of the agent loop: at each turn start.
        for (const start of [...Boundary.turnStarts(transcript), transcript.length]) {
          const prefix = transcript.slice(0, start)
          if (!prefix.some((m) => m._tag === "User")) continue
          const outcome = Compat.matchResult(
            yield* Compat.result(
              compactor.checkpoint({ sessionId: name, transcript: prefix, model: "recorded", contextWindow })
            ),
            { onFailure: (error) => assert.fail(error.message), onSuccess: (checkpoint) => checkpoint }
          )
          const first = Transcript.firstUserMessage(prefix)
          assert.deepStrictEqual(
            ViewCheck.check(outcome.view, {
              firstUserMessage: first,
              fit: { trigger, replyReserve: Budget.replyReserve(settings, trigger, contextWindow), tokens }
            }),
            []
          )
          if (Option.isSome(outcome.compacted)) reports.push(outcome.compacted.value)
        }
        assert.strictEqual(JSON.stringify(transcript), before, "the transcript was modified")
        assert.isAtLeast(reports.length, 2, "expected several compactions")
        for (const report of reports) {
          assert.isBelow(report.tokensAfter, report.tokensBefore)
          assert.strictEqual(report.gate.at(-1), "passed", "the offline summary should pass the gate")
          assert.strictEqual(report.fallback, "none")
        }
      }).pipe(Effect.provide(engine)))
  }
})
