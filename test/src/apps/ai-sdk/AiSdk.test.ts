import type { LanguageModelV2CallOptions, LanguageModelV2Prompt, LanguageModelV2StreamPart } from "@ai-sdk/provider"
import { assert, describe, it } from "@effect/vitest"
import { generateText, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from "ai"
import { MockLanguageModelV2, simulateReadableStream } from "ai/test"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll } from "vitest"
import { z } from "zod"
import { answer } from "../../../../examples/ai-sdk-middleware.js"
import { run } from "../../../../examples/ai-sdk-prepare-step.js"
import { compactionMiddleware, compactionPrepareStep } from "../../../../src/apps/ai-sdk/index.js"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as Histories from "../../../support/Histories.js"
import * as Generated from "../../../transcripts.js"

const usage = { inputTokens: 10, outputTokens: 2, totalTokens: 12 }

const textModel = () =>
  new MockLanguageModelV2({
    doGenerate: async () => ({ content: [{ type: "text", text: "Done." }], finishReason: "stop", usage, warnings: [] }),
    doStream: async () => ({
      stream: simulateReadableStream<LanguageModelV2StreamPart>({
        chunks: [
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Streamed." },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: "stop", usage }
        ]
      })
    })
  })

/** A long tool-using history: every turn reads a file and a job status, as the agent's own `ModelMessage`s. */
const history: Array<ModelMessage> = Histories.toModelMessages(Generated.longSession)

const textOf = (message: LanguageModelV2Prompt[number]): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.map((part) => ("text" in part ? part.text : "")).join("")

/** What the model received is a compacted view of the history: the system message, the block, the latest turns whole. */
const assertCompactedPrompt = (call: LanguageModelV2CallOptions) => {
  const prompt = call.prompt
  assert.isBelow(prompt.length, history.length)
  assert.strictEqual(prompt[0]!.role, "system")
  assert.strictEqual(prompt[1]!.role, "user")
  assert.match(textOf(prompt[1]!), /compacted/i)
  // Every tool call left in the view keeps its result.
  const calls = prompt.flatMap((
    m
  ) => (m.role === "assistant" ? m.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : [])) : []))
  const results = new Set(prompt.flatMap((m) => (m.role === "tool" ? m.content.map((p) => p.toolCallId) : [])))
  assert.isAbove(calls.length, 0)
  for (const id of calls) assert.isTrue(results.has(id), `the result of ${id} is in the view`)
  const last = history.at(-1)!
  assert.strictEqual(prompt.at(-1)!.role, last.role)
}

describe("context-compressor/ai-sdk with the AI SDK v5", () => {
  let directory: string
  let compactor: CompactorPromise.Compactor
  beforeAll(async () => {
    directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-ai-sdk-"))
    compactor = await CompactorPromise.createCompactor({ directory, env: {} })
  })
  afterAll(async () => {
    await compactor.close()
    Fs.rmSync(directory, { recursive: true, force: true })
  })

  it("generateText through the middleware sends the model a compacted prompt, the other call options untouched", async () => {
    const model = textModel()
    const before = JSON.stringify(history)
    const wrapped = wrapLanguageModel({
      model,
      middleware: compactionMiddleware({ compactor, contextWindow: 16_000, sessionId: "generate" })
    })
    const result = await generateText({
      model: wrapped,
      messages: history,
      temperature: 0.3,
      maxOutputTokens: 512,
      headers: { "x-run": "42" }
    })
    assert.strictEqual(result.text, "Done.")
    assert.strictEqual(JSON.stringify(history), before)
    assert.strictEqual(model.doGenerateCalls.length, 1)
    const call = model.doGenerateCalls[0]!
    assertCompactedPrompt(call)
    assert.strictEqual(call.temperature, 0.3)
    assert.strictEqual(call.maxOutputTokens, 512)
    assert.strictEqual(call.headers?.["x-run"], "42")
  })

  it("streamText through the middleware streams the reply of a model that received the compacted prompt", async () => {
    const model = textModel()
    const wrapped = wrapLanguageModel({
      model,
      middleware: compactionMiddleware({ compactor, contextWindow: 16_000, sessionId: "stream" })
    })
    const result = streamText({ model: wrapped, messages: history })
    assert.strictEqual(await result.text, "Streamed.")
    assert.strictEqual(model.doStreamCalls.length, 1)
    assertCompactedPrompt(model.doStreamCalls[0]!)
  })

  it("takes the session from the call's providerOptions when the middleware names none", async () => {
    const model = textModel()
    const heard: Array<string> = []
    const stop = compactor.onCompacted((report) => heard.push(report.sessionId))
    const wrapped = wrapLanguageModel({ model, middleware: compactionMiddleware({ compactor, contextWindow: 16_000 }) })
    await generateText({
      model: wrapped,
      messages: history,
      providerOptions: { "context-compressor": { sessionId: "from-call" } }
    })
    stop()
    assert.deepStrictEqual(heard, ["from-call"])
    assertCompactedPrompt(model.doGenerateCalls[0]!)
  })

  it("leaves a prompt that fits as it was", async () => {
    const model = textModel()
    const wrapped = wrapLanguageModel({
      model,
      middleware: compactionMiddleware({ compactor, contextWindow: 128_000, sessionId: "fits" })
    })
    await generateText({ model: wrapped, messages: history.slice(0, 4) })
    const unwrapped = textModel()
    await generateText({ model: unwrapped, messages: history.slice(0, 4) })
    assert.deepStrictEqual(model.doGenerateCalls[0]!.prompt, unwrapped.doGenerateCalls[0]!.prompt)
  })

  it("a compaction that cannot be made rejects the call with the compactor's error", async () => {
    const wrapped = wrapLanguageModel({
      model: textModel(),
      middleware: compactionMiddleware({ compactor, contextWindow: 300, sessionId: "tiny" })
    })
    try {
      await generateText({ model: wrapped, messages: history })
      assert.fail("expected a rejection")
    } catch (error) {
      assert.instanceOf(error, CompactorPromise.CompactionError)
    }
  })

  it("prepareStep sends every step of a tool-using run the compacted messages", async () => {
    let step = 0
    const model = new MockLanguageModelV2({
      doGenerate: async () =>
        step++ === 0
          ? {
            content: [{
              type: "tool-call",
              toolCallId: "new-call",
              toolName: "bash",
              input: JSON.stringify({ command: "ls" })
            }],
            finishReason: "tool-calls",
            usage,
            warnings: []
          }
          : { content: [{ type: "text", text: "All done." }], finishReason: "stop", usage, warnings: [] }
    })
    const result = await generateText({
      model,
      messages: history,
      tools: { bash: tool({ inputSchema: z.object({ command: z.string() }), execute: async () => "src\ntest" }) },
      stopWhen: stepCountIs(3),
      prepareStep: compactionPrepareStep({ compactor, contextWindow: 16_000, sessionId: "steps" })
    })
    assert.strictEqual(result.text, "All done.")
    assert.strictEqual(model.doGenerateCalls.length, 2)
    assertCompactedPrompt(model.doGenerateCalls[0]!)
    const second = model.doGenerateCalls[1]!.prompt
    assert.isBelow(second.length, history.length)
    // The second step holds the first step's call and its result after the compacted part.
    const lastTool = second.at(-1)!
    assert.strictEqual(lastTool.role, "tool")
    assert.strictEqual(lastTool.role === "tool" ? lastTool.content[0]!.toolCallId : "", "new-call")
  })

  it("examples/ai-sdk-middleware.ts: generateText and streamText send the compacted history", async () => {
    const model = textModel()
    const replies = await answer(compactor, model, history, 16_000)
    assert.deepStrictEqual(replies, { text: "Done.", streamed: "Streamed." })
    assertCompactedPrompt(model.doGenerateCalls[0]!)
    assert.isBelow(model.doStreamCalls[0]!.prompt.length, history.length + 2)
  })

  it("examples/ai-sdk-prepare-step.ts: a tool call, then the answer, each step compacted", async () => {
    let step = 0
    const model = new MockLanguageModelV2({
      doGenerate: async () =>
        step++ === 0
          ? {
            content: [{
              type: "tool-call",
              toolCallId: "c-example",
              toolName: "bash",
              input: JSON.stringify({ command: "ls" })
            }],
            finishReason: "tool-calls",
            usage,
            warnings: []
          }
          : { content: [{ type: "text", text: "There are two folders." }], finishReason: "stop", usage, warnings: [] }
    })
    assert.strictEqual(await run(compactor, model, history, 16_000), "There are two folders.")
    assert.strictEqual(model.doGenerateCalls.length, 2)
    for (const call of model.doGenerateCalls) assert.isBelow(call.prompt.length, history.length)
  })
})
