import type { LanguageModelV2CallOptions } from "@ai-sdk/provider"
import { assert, describe, it } from "@effect/vitest"
import { MockLanguageModelV2 } from "ai/test"
import { compactionMiddleware, compactionPrepareStep, recallTool } from "../../../../src/apps/ai-sdk/index.js"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as Histories from "../../../support/Histories.js"
import * as Generated from "../../../transcripts.js"

const history = Histories.toModelMessages(Generated.longSession)

/** What a plain-JavaScript caller can pass: anything. */
const untyped = (options: unknown) =>
  options as Parameters<typeof compactionMiddleware>[0] & Parameters<typeof compactionPrepareStep>[0]

const thrown = (make: () => unknown): CompactorPromise.OptionError => {
  try {
    make()
  } catch (error) {
    assert.instanceOf(error, CompactorPromise.OptionError)
    return error as CompactorPromise.OptionError
  }
  throw new Error("expected the helper to throw when made")
}

const summary = SummaryPrompt.generalSections.map((heading) =>
  `${heading}\nThe parser cache of the long run, as the user asked for it.`
).join("\n\n")

describe("the AI SDK helpers made from options alone", () => {
  it("throw at once, naming the option, for a missing or wrong one", () => {
    assert.strictEqual(thrown(() => compactionMiddleware(untyped(undefined))).option, "options")
    const missing = thrown(() => compactionMiddleware(untyped({})))
    assert.strictEqual(missing.option, "contextWindow")
    assert.include(missing.message, "positive number of tokens")
    assert.strictEqual(thrown(() => compactionPrepareStep(untyped({ contextWindow: "128k" }))).option, "contextWindow")
    assert.strictEqual(
      thrown(() => compactionMiddleware(untyped({ contextWindow: 1000, summarizer: "bogus" }))).option,
      "summarizer"
    )
    assert.strictEqual(
      thrown(() => compactionMiddleware(untyped({ contextWindow: 1000, settings: { keepFraction: 2 } }))).option,
      "settings.keepFraction"
    )
    assert.strictEqual(
      thrown(() => compactionMiddleware(untyped({ contextWindow: 1000, compactor: {} }))).option,
      "compactor"
    )
    assert.strictEqual(
      thrown(() => compactionPrepareStep(untyped({ contextWindow: 1000, summarizerModel: "gpt-4.1" }))).option,
      "summarizerModel"
    )
    assert.strictEqual(
      thrown(() => compactionPrepareStep(untyped({ contextWindow: 1000, sessionId: 7 }))).option,
      "sessionId"
    )
  })

  it("throw at once for an option that is not one, in the helper's options and in its nested ones (issue 43)", async () => {
    const window = thrown(() => compactionMiddleware(untyped({ contextWindw: 128_000 })))
    assert.strictEqual(window.option, "contextWindw")
    assert.include(window.message, "not an option (did you mean contextWindow?); the options are contextWindow,")
    const summarizer = thrown(() => compactionPrepareStep(untyped({ contextWindow: 1000, sumarizer: "offline" })))
    assert.strictEqual(summarizer.option, "sumarizer")
    assert.include(summarizer.message, "did you mean summarizer?")
    assert.strictEqual(
      thrown(() =>
        compactionMiddleware(
          untyped({ contextWindow: 1000, summarizer: { baseUrl: "http://127.0.0.1:1/v1", modle: "m" } })
        )
      ).option,
      "summarizer.modle"
    )
    assert.strictEqual(
      thrown(() => compactionPrepareStep(untyped({ contextWindow: 1000, settings: { keepFractoin: 0.3 } }))).option,
      "settings.keepFractoin"
    )
    const compactor = await CompactorPromise.createCompactor({ env: {} })
    try {
      assert.strictEqual(
        thrown(() => compactionMiddleware(untyped({ compactor, contextWindow: 1000, sesionId: "s" }))).option,
        "sesionId"
      )
      assert.strictEqual(thrown(() => recallTool(compactor, { sessionId: "s", sesion: 1 } as never)).option, "sesion")
    } finally {
      await compactor.close()
    }
  })

  it("refuse the options of an own compactor next to a given one", async () => {
    const compactor = await CompactorPromise.createCompactor({ env: {} })
    try {
      const both = thrown(() => compactionMiddleware({ compactor, contextWindow: 1000, directory: ".cc" }))
      assert.strictEqual(both.option, "directory")
    } finally {
      await compactor.close()
    }
  })

  it("compactionMiddleware({ contextWindow }) makes its own compactor on first use and compacts, with an ai@5 model as the summariser through the installed ai", async () => {
    const summarizer = new MockLanguageModelV2({
      doGenerate: async () => ({
        content: [{ type: "text", text: summary }],
        finishReason: "stop",
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        warnings: []
      })
    })
    const middleware = compactionMiddleware({ contextWindow: 12_000, summarizerModel: summarizer, env: {} })
    try {
      const params = { prompt: history } as unknown as LanguageModelV2CallOptions
      const out = await middleware.transformParams({ type: "generate", params, model: { modelId: "m" } })
      assert.isBelow(out.prompt.length, history.length)
      assert.strictEqual(summarizer.doGenerateCalls.length, 1)
      const request = summarizer.doGenerateCalls[0]!
      assert.strictEqual(request.prompt[0]!.role, "system")
      assert.include(JSON.stringify(out.prompt[1]), "The parser cache of the long run")
    } finally {
      await middleware.close()
    }
  })
})
