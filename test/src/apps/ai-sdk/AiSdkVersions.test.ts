/**
 * The AI SDK helpers against the real ai@6 (LanguageModelV3) and ai@7
 * (LanguageModelV4), installed as the aliases `ai-v6` and `ai-v7`, with each
 * version's own mock model: generateText and streamText through the
 * middleware, a tool loop through prepareStep (ai@7's `instructions` kept as
 * the system part), and a model of the version as the summariser. ai@5 is
 * `AiSdk.test.ts`'s.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider-v3"
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider-v4"
import { assert, describe, it } from "@effect/vitest"
import * as AiV6 from "ai-v6"
import * as AiV6Test from "ai-v6/test"
import * as AiV7 from "ai-v7"
import * as AiV7Test from "ai-v7/test"
import { z } from "zod"
import { compactionMiddleware, compactionPrepareStep } from "../../../../src/apps/ai-sdk/index.js"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as Histories from "../../../support/Histories.js"
import * as Generated from "../../../transcripts.js"

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined }
}
const stop = { unified: "stop", raw: "stop" } as const
const toolCalls = { unified: "tool-calls", raw: "tool_calls" } as const

type Prompt = ReadonlyArray<{ readonly role: string; readonly content: unknown }>

/** The full history, as `ModelMessage`s: a system message, then a long tool-using run. */
const history = Histories.toModelMessages(Generated.longSession)
const [system, ...conversation] = history
const instructions = typeof system?.content === "string" ? system.content : ""

const textOf = (message: Prompt[number]): string =>
  typeof message.content === "string"
    ? message.content
    : Array.isArray(message.content)
    ? message.content.map((part: { readonly text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join(
      ""
    )
    : ""

/** The model was sent a compacted view: the system part first, the block, every kept call with its result. */
const assertCompacted = (prompt: Prompt) => {
  assert.isBelow(prompt.length, history.length)
  assert.strictEqual(prompt[0]!.role, "system")
  assert.strictEqual(textOf(prompt[0]!), instructions)
  assert.strictEqual(prompt[1]!.role, "user")
  assert.match(textOf(prompt[1]!), /compacted/i)
  const parts = (role: string) =>
    prompt.filter((m) => m.role === role).flatMap((
      m
    ) => (Array.isArray(m.content) ? m.content as Array<{ type: string; toolCallId?: string }> : []))
  const calls = parts("assistant").filter((p) => p.type === "tool-call").map((p) => p.toolCallId)
  const results = new Set(parts("tool").map((p) => p.toolCallId))
  assert.isAbove(calls.length, 0)
  for (const id of calls) assert.isTrue(results.has(id), `the result of ${id} is in the view`)
}

/** A summary the quality gate accepts: the eight general sections, each with a line. */
const summary = SummaryPrompt.generalSections
  .map((heading, index) =>
    `${heading}\n${
      index === 0
        ? "The user asked for a long run."
        : "Work on the parser cache of the long run, in the files read so far."
    }`
  )
  .join("\n\n")

describe("context-compressor/ai-sdk with ai@6 (LanguageModelV3)", () => {
  const textModel = () =>
    new AiV6Test.MockLanguageModelV3({
      doGenerate: async () => ({ content: [{ type: "text", text: "Done." }], finishReason: stop, usage, warnings: [] }),
      doStream: async () => ({
        stream: AiV6Test.simulateReadableStream<LanguageModelV3StreamPart>({
          chunks: [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Streamed." }, {
            type: "text-end",
            id: "t"
          }, { type: "finish", finishReason: stop, usage }]
        })
      })
    })

  it("generateText and streamText through an options-only middleware send the model the compacted prompt", async () => {
    const model = textModel()
    const middleware = compactionMiddleware({ contextWindow: 16_000, sessionId: "v6" })
    try {
      const wrapped = AiV6.wrapLanguageModel({ model, middleware })
      const generated = await AiV6.generateText({ model: wrapped, messages: history, temperature: 0.2 })
      assert.strictEqual(generated.text, "Done.")
      const streamed = AiV6.streamText({ model: wrapped, messages: history })
      assert.strictEqual(await streamed.text, "Streamed.")
      const calls: ReadonlyArray<LanguageModelV3CallOptions> = [...model.doGenerateCalls, ...model.doStreamCalls]
      assert.strictEqual(calls.length, 2)
      for (const call of calls) assertCompacted(call.prompt)
      assert.strictEqual(model.doGenerateCalls[0]!.temperature, 0.2)
    } finally {
      await middleware.close()
    }
  })

  it("a tool loop through prepareStep, with a V3 model of the version as the summariser", async () => {
    let step = 0
    const model = new AiV6Test.MockLanguageModelV3({
      doGenerate: async () =>
        step++ === 0
          ? {
            content: [{
              type: "tool-call",
              toolCallId: "v6-call",
              toolName: "bash",
              input: JSON.stringify({ command: "ls" })
            }],
            finishReason: toolCalls,
            usage,
            warnings: []
          }
          : { content: [{ type: "text", text: "All done." }], finishReason: stop, usage, warnings: [] }
    })
    const summarizer = new AiV6Test.MockLanguageModelV3({
      doGenerate: async () => ({ content: [{ type: "text", text: summary }], finishReason: stop, usage, warnings: [] })
    })
    // The repository's own `ai` is ai@5: the summariser is asked through ai@6's generateText, as an app on ai@6 would.
    const prepareStep = compactionPrepareStep({
      contextWindow: 16_000,
      sessionId: "v6-steps",
      summarizer: { model: summarizer, generateText: AiV6.generateText }
    })
    try {
      const result = await AiV6.generateText({
        model,
        messages: history,
        tools: {
          bash: AiV6.tool({ inputSchema: z.object({ command: z.string() }), execute: async () => "src\ntest" })
        },
        stopWhen: AiV6.stepCountIs(3),
        prepareStep
      })
      assert.strictEqual(result.text, "All done.")
      assert.strictEqual(model.doGenerateCalls.length, 2)
      assertCompacted(model.doGenerateCalls[0]!.prompt)
      assert.include(textOf(model.doGenerateCalls[0]!.prompt[1]!), "The user asked for a long run.")
      assert.strictEqual(summarizer.doGenerateCalls.length, 1)
      assert.strictEqual(summarizer.doGenerateCalls[0]!.prompt[0]!.role, "system")
      assert.strictEqual(model.doGenerateCalls[1]!.prompt.at(-1)!.role, "tool")
    } finally {
      await prepareStep.close()
    }
  })
})

describe("context-compressor/ai-sdk with ai@7 (LanguageModelV4)", () => {
  const textModel = () =>
    new AiV7Test.MockLanguageModelV4({
      doGenerate: async () => ({ content: [{ type: "text", text: "Done." }], finishReason: stop, usage, warnings: [] }),
      doStream: async () => ({
        stream: AiV7Test.simulateReadableStream<LanguageModelV4StreamPart>({
          chunks: [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Streamed." }, {
            type: "text-end",
            id: "t"
          }, { type: "finish", finishReason: stop, usage }]
        })
      })
    })

  it("generateText and streamText (instructions, then the messages) through the middleware send the compacted prompt", async () => {
    const model = textModel()
    const middleware = compactionMiddleware({ contextWindow: 16_000, sessionId: "v7" })
    try {
      const wrapped = AiV7.wrapLanguageModel({ model, middleware })
      const generated = await AiV7.generateText({
        model: wrapped,
        instructions,
        messages: conversation,
        maxOutputTokens: 300
      })
      assert.strictEqual(generated.text, "Done.")
      const streamed = AiV7.streamText({ model: wrapped, instructions, messages: conversation })
      assert.strictEqual(await streamed.text, "Streamed.")
      const calls: ReadonlyArray<LanguageModelV4CallOptions> = [...model.doGenerateCalls, ...model.doStreamCalls]
      assert.strictEqual(calls.length, 2)
      for (const call of calls) assertCompacted(call.prompt)
      assert.strictEqual(model.doGenerateCalls[0]!.maxOutputTokens, 300)
    } finally {
      await middleware.close()
    }
  })

  it("a tool loop through prepareStep keeps the instructions as the system part, with a V4 model as the summariser", async () => {
    let step = 0
    const model = new AiV7Test.MockLanguageModelV4({
      doGenerate: async () =>
        step++ === 0
          ? {
            content: [{
              type: "tool-call",
              toolCallId: "v7-call",
              toolName: "bash",
              input: JSON.stringify({ command: "ls" })
            }],
            finishReason: toolCalls,
            usage,
            warnings: []
          }
          : { content: [{ type: "text", text: "All done." }], finishReason: stop, usage, warnings: [] }
    })
    const summarizer = new AiV7Test.MockLanguageModelV4({
      doGenerate: async () => ({ content: [{ type: "text", text: summary }], finishReason: stop, usage, warnings: [] })
    })
    const prepareStep = compactionPrepareStep({
      contextWindow: 16_000,
      sessionId: "v7-steps",
      summarizer: { model: summarizer, generateText: AiV7.generateText }
    })
    try {
      const result = await AiV7.generateText({
        model,
        instructions,
        messages: conversation,
        tools: {
          bash: AiV7.tool({ inputSchema: z.object({ command: z.string() }), execute: async () => "src\ntest" })
        },
        stopWhen: AiV7.stepCountIs(3),
        prepareStep
      })
      assert.strictEqual(result.text, "All done.")
      assert.strictEqual(model.doGenerateCalls.length, 2)
      for (const call of model.doGenerateCalls) {
        // One system part, the instructions, whatever was compacted behind them.
        assert.deepStrictEqual(call.prompt.filter((m) => m.role === "system").map(textOf), [instructions])
      }
      assertCompacted(model.doGenerateCalls[0]!.prompt)
      assert.include(textOf(model.doGenerateCalls[0]!.prompt[1]!), "The user asked for a long run.")
      // The summary request: R2.4's instruction as the system part (sent as ai@7's instructions), the transcript as the prompt.
      const request = summarizer.doGenerateCalls[0]!
      assert.strictEqual(request.prompt[0]!.role, "system")
      assert.strictEqual(request.prompt[1]!.role, "user")
      assert.isAbove(request.maxOutputTokens ?? 0, 0)
    } finally {
      await prepareStep.close()
    }
  })

  it("createCompactor({ summarizer: { model, generateText } }) refuses a summary cut at the limit and trims after the retry, as with any summariser", async () => {
    const cut = new AiV7Test.MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: "text", text: "## 1. Primary" }],
        finishReason: { unified: "length", raw: "length" },
        usage,
        warnings: []
      })
    })
    const compactor = await CompactorPromise.createCompactor({
      summarizer: { model: cut, generateText: AiV7.generateText },
      env: {},
      settings: { capTokens: 10_000 }
    })
    try {
      const result = await compactor.compact(history, { contextWindow: 200_000, sessionId: "cut" })
      assert.strictEqual(result.report?.fallback, "trim")
      assert.strictEqual(cut.doGenerateCalls.length, 2)
      assert.strictEqual(result.report?.summarizerCalls, 2)
    } finally {
      await compactor.close()
    }
  })
})

describe("the middleware tells of a summary that fell back to a trim (ai@7)", () => {
  it("a summary under the gate's minimum is a trim: onFallback is called with the reason, generateText's and streamText's warnings carry it, the model's own warnings kept", async () => {
    // An AI SDK summariser whose summary is too short: refused by the gate twice, then trimmed.
    const summarizer = new AiV7Test.MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: "text", text: "## 1. Primary Request and Intent\nShort." }],
        finishReason: stop,
        usage,
        warnings: []
      })
    })
    const told: Array<CompactorPromise.Fallback> = []
    const middleware = compactionMiddleware({
      contextWindow: 200_000,
      summarizer: { model: summarizer, generateText: AiV7.generateText },
      env: {},
      settings: { capTokens: 10_000 },
      sessionId: "short",
      onFallback: (fallback) => void told.push(fallback)
    })
    const own = { type: "other", message: "the model's own warning" } as const
    const model = new AiV7Test.MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: "text", text: "Done." }],
        finishReason: stop,
        usage,
        warnings: [own]
      }),
      doStream: async () => ({
        stream: AiV7Test.simulateReadableStream<LanguageModelV4StreamPart>({
          chunks: [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Streamed." }, {
            type: "text-end",
            id: "t"
          }, { type: "finish", finishReason: stop, usage }]
        })
      })
    })
    const consoleError = console.error
    console.error = () => undefined
    try {
      const wrapped = AiV7.wrapLanguageModel({ model, middleware })
      const generated = await AiV7.generateText({ model: wrapped, instructions, messages: conversation })
      assert.strictEqual(generated.text, "Done.")
      assert.strictEqual(told.length, 1)
      assert.deepStrictEqual(told[0]!.gate, ["too-short", "too-short"])
      assert.match(told[0]!.reason, /^the summary was refused by the quality gate \(too-short: /)
      const messages = (generated.warnings ?? []).map((warning) => ("message" in warning ? warning.message : ""))
      assert.strictEqual(messages[0], own.message)
      assert.strictEqual(messages.length, 2)
      assert.strictEqual(
        messages[1],
        `context-compressor: compaction 1 of session short fell back to a trim: ${
          told[0]!.reason
        } (gate: too-short, too-short)`
      )
      // A stream of a new session: the warning arrives in the stream-start part the middleware sends first.
      const streaming = compactionMiddleware({
        contextWindow: 200_000,
        summarizer: { model: summarizer, generateText: AiV7.generateText },
        env: {},
        settings: { capTokens: 10_000 },
        sessionId: "streamed"
      })
      const streamed = AiV7.streamText({
        model: AiV7.wrapLanguageModel({ model, middleware: streaming }),
        instructions,
        messages: conversation
      })
      assert.strictEqual(await streamed.text, "Streamed.")
      const streamWarnings = ((await streamed.warnings) ?? []).map((
        warning
      ) => ("message" in warning ? warning.message : ""))
      assert.strictEqual(streamWarnings.length, 1)
      assert.match(
        streamWarnings[0]!,
        /^context-compressor: compaction 1 of session streamed fell back to a trim: the summary was refused by the quality gate/
      )
      await streaming.close()
      // prepareStep tells its onFallback the same.
      const steps: Array<CompactorPromise.Fallback> = []
      const prepareStep = compactionPrepareStep({
        contextWindow: 200_000,
        summarizer: { model: summarizer, generateText: AiV7.generateText },
        env: {},
        settings: { capTokens: 10_000 },
        sessionId: "step",
        onFallback: (fallback) => void steps.push(fallback)
      })
      const prepared = await prepareStep({ messages: conversation, instructions })
      await prepareStep.close()
      assert.isBelow(prepared.messages.length, conversation.length)
      assert.deepStrictEqual(steps.map((fallback) => [fallback.sessionId, fallback.gate]), [["step", [
        "too-short",
        "too-short"
      ]]])
    } finally {
      console.error = consoleError
      await middleware.close()
    }
  })
})
