import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as Options from "../../../../src/apps/promise/Options.js"
import * as Histories from "../../../support/Histories.js"
import * as Generated from "../../../transcripts.js"

const history = Histories.toOpenAiChat(Generated.longSession)

const refusal = async (options: unknown): Promise<CompactorPromise.OptionError> => {
  try {
    const compactor = await CompactorPromise.createCompactor(options as CompactorPromise.CreateOptions)
    await compactor.close()
  } catch (error) {
    assert.instanceOf(error, CompactorPromise.OptionError)
    return error as CompactorPromise.OptionError
  }
  throw new Error(`expected ${JSON.stringify(options)} to be refused`)
}

describe("createCompactor's options", () => {
  it("refuses an unknown summariser name, a bad URL and an out-of-range setting, naming the option and what it accepts", async () => {
    const bogus = await refusal({ summarizer: "bogus" })
    assert.strictEqual(bogus.option, "summarizer")
    assert.include(bogus.message, `"offline", "chat-completions"`)
    assert.include(bogus.message, `not "bogus"`)
    const url = await refusal({ summarizer: { baseUrl: "notaurl" } })
    assert.strictEqual(url.option, "summarizer.baseUrl")
    assert.include(url.message, "http:// or https://")
    const pg = await refusal({ databaseUrl: "mysql://host/db" })
    assert.strictEqual(pg.option, "databaseUrl")
    const pct = await refusal({ settings: { triggerPct: 120 } })
    assert.strictEqual(pct.option, "settings.triggerPct")
    assert.include(pct.message, "a number from 10 to 95")
    const unknown = await refusal({ settings: { trigger: 50 } })
    assert.strictEqual(unknown.option, "settings.trigger")
    assert.include(unknown.message, "triggerPct")
    const shape = await refusal({ settings: { summaryRequest: "shared" } })
    assert.strictEqual(shape.option, "settings.summaryRequest")
    assert.include(shape.message, `one of "delimited", "shared-prefix"`)
    assert.deepStrictEqual(Options.checkSettings({ summaryRequest: "shared-prefix" }), {
      summaryRequest: "shared-prefix"
    })
    const model = await refusal({ summarizer: { specificationVersion: "v1", doGenerate: () => Promise.resolve() } })
    assert.include(model.message, "v2, v3 or v4")
    assert.strictEqual((await refusal("dir")).option, "options")
  })

  it("refuses an option that is not one, naming it and the option it most likely meant (issue 43)", async () => {
    const misspelt = await refusal({ sumarizer: "openai", contextWindw: 5 })
    assert.strictEqual(misspelt.option, "sumarizer")
    assert.strictEqual(misspelt.reason, "invalid-option")
    assert.include(misspelt.message, "sumarizer: not an option (did you mean summarizer?); the options are directory,")
    const window = await refusal({ contextWindw: 5 })
    assert.strictEqual(window.option, "contextWindw")
    assert.include(window.message, "did you mean contextWindow? that is an option of compact(), not of createCompactor")
    const compactOption = await refusal({ contextWindow: 128_000 })
    assert.include(compactOption.message, "contextWindow is an option of compact(), not of createCompactor")
    const far = await refusal({ colour: "blue" })
    assert.strictEqual(far.option, "colour")
    assert.notInclude(far.message, "did you mean")
    // Whatever its value: a key that is not an option is a mistake even when it is undefined.
    assert.strictEqual((await refusal({ directroy: undefined })).option, "directroy")
  })

  it("compact(), contextOverflow() and recall() refuse an option that is not one: a misspelt sessionId never falls back to the derived session", async () => {
    const compactor = await CompactorPromise.createCompactor()
    try {
      const refused = async (call: Promise<unknown>) => {
        const error = await call.then(() => undefined, (error: unknown) => error)
        assert.instanceOf(error, CompactorPromise.OptionError)
        return error as CompactorPromise.OptionError
      }
      const misspelt = await refused(compactor.compact(history, { contextWindow: 128_000, sesionId: "a" } as never))
      assert.strictEqual(misspelt.option, "sesionId")
      assert.include(misspelt.message, "did you mean sessionId?")
      const overflow = await refused(
        compactor.contextOverflow(history, { contextWindow: 128_000, modle: "m" } as never)
      )
      assert.strictEqual(overflow.option, "modle")
      const elsewhere = await refused(compactor.compact(history, { contextWindow: 128_000, directory: "d" } as never))
      assert.include(elsewhere.message, "directory is an option of createCompactor(), not of compact")
      const recall = await refused(compactor.recall({ sessionId: "s", handle: "ctx_x", ofset: 1 } as never))
      assert.strictEqual(recall.option, "ofset")
      // The options as documented still work.
      const result = await compactor.compact(history, { contextWindow: 128_000, sessionId: "named", model: "m" })
      assert.strictEqual(result.sessionId, "named")
    } finally {
      await compactor.close()
    }
  })

  it("refuses a key that is not an option in the nested objects: the server, the AI SDK model's, the settings", async () => {
    const key = await refusal({ summarizer: { baseUrl: "http://127.0.0.1:1/v1", apikey: "sk-test" } })
    assert.strictEqual(key.option, "summarizer.apikey")
    assert.include(key.message, "did you mean apiKey?")
    assert.notInclude(key.message, "sk-test")
    const base = await refusal({ summarizer: { baseURL: "http://127.0.0.1:1/v1", model: "gpt-5-mini" } })
    assert.strictEqual(base.option, "summarizer.baseURL")
    assert.include(base.message, "did you mean baseUrl?")
    const model = { specificationVersion: "v2", provider: "p", modelId: "m", doGenerate: () => Promise.resolve() }
    const generate = await refusal({ summarizer: { model, generatetext: () => Promise.resolve() } })
    assert.strictEqual(generate.option, "summarizer.generatetext")
    assert.include(generate.message, "did you mean generateText?")
    const setting = await refusal({ settings: { trigerPct: 50 } })
    assert.strictEqual(setting.option, "settings.trigerPct")
    assert.include(setting.message, "not a setting (did you mean triggerPct?); the settings are triggerPct,")
    // env holds environment variables: any name is one.
    const compactor = await CompactorPromise.createCompactor({ env: { ANY_NAME: "1" } })
    await compactor.close()
  })

  it("suggests a name only when it is close: within a third of its length, case aside", () => {
    assert.strictEqual(Options.closestName("SUMMARIZER", ["directory", "summarizer"]), "summarizer")
    assert.strictEqual(Options.closestName("onQuestions", ["onQuestion", "onFallback"]), "onQuestion")
    assert.isUndefined(Options.closestName("verbose", ["directory", "summarizer", "env"]))
  })

  it.prop(
    "accepts every setting in its range and refuses every number outside it",
    [fc.double({ noNaN: false })],
    ([value]) => {
      const inRange = value >= 0.05 && value <= 0.8
      try {
        Options.checkSettings({ keepFraction: value })
        return inRange
      } catch (error) {
        return !inRange && error instanceof CompactorPromise.OptionError && error.option === "settings.keepFraction"
      }
    }
  )

  it("takes typed settings over the environment's: a lower trigger compacts what the default leaves", async () => {
    const window = 400_000
    const byDefault = await CompactorPromise.createCompactor({
      env: { CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "90" }
    })
    const low = await CompactorPromise.createCompactor({
      env: { CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "90" },
      settings: { triggerPct: 10, capTokens: 10_000 }
    })
    try {
      const plain = await byDefault.compact(history, { contextWindow: window })
      const compacted = await low.compact(history, { contextWindow: window })
      assert.isAbove(plain.trigger, compacted.trigger)
      assert.isUndefined(plain.report)
      assert.isDefined(compacted.report)
      assert.isBelow(compacted.tokens, plain.tokens)
    } finally {
      await byDefault.close()
      await low.close()
    }
  })

  it("keeps state in memory without a directory: compacts, archives in memory only, and the next call sees the compaction", async () => {
    const compactor = await CompactorPromise.createCompactor({ env: {}, settings: { capTokens: 10_000 } })
    try {
      const first = await compactor.compact(history, { contextWindow: 200_000, sessionId: "memory" })
      assert.isDefined(first.report)
      assert.match(first.report?.archivePath ?? "", /^the compactor's memory archive \(compaction 1, [0-9a-f]{12}\)$/)
      const again = await compactor.compact(history, { contextWindow: 200_000, sessionId: "memory" })
      assert.isUndefined(again.report)
      assert.deepStrictEqual(again.messages, first.messages)
    } finally {
      await compactor.close()
    }
  })
})
