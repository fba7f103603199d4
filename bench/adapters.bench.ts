/**
 * Adapter benchmark: decoding a 371-message tool-using session (the example
 * session, `examples/session/agent-session.json`) in each of the four formats,
 * and writing back a view that changed nothing, against `JSON.parse` of the
 * document's text plus `JSON.stringify` of it, measured in the same run.
 *
 * The session in the other three formats is that adapter's own encoding of
 * the neutral transcript (a view of new messages is written fresh); Anthropic's
 * merges the tool results that answer one turn into one user message, so it
 * has fewer messages.
 *
 * Run: `npx tsx bench/adapters.bench.ts` (`--budget 2` scales the time per measurement).
 */
import { Prompt } from "@effect/ai"
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as EffectAiPrompt from "../src/apps/effect-ai/EffectAiPrompt.js"
import type * as Adapter from "../src/face/adapters/Adapter.js"
import * as AiSdkMessages from "../src/face/adapters/AiSdkMessages.js"
import * as AnthropicMessages from "../src/face/adapters/AnthropicMessages.js"
import * as OpenAiChat from "../src/face/adapters/OpenAiChat.js"
import { elapsedMs, formatMs, gc, median, now, printTable } from "./timing.js"

const budgetArg = process.argv.indexOf("--budget")
const budget = budgetArg === -1 ? 1 : Number(process.argv[budgetArg + 1] ?? 1)

const sample = (f: () => unknown): number => {
  // Warm up first, so that the first measured function does not pay for the compiler.
  for (let k = 0; k < 20; k++) f()
  const times: Array<number> = []
  const deadline = Date.now() + 1_000 * budget
  while (times.length < 10 || (Date.now() < deadline && times.length < 200)) {
    gc?.()
    const start = now()
    f()
    times.push(elapsedMs(start))
  }
  return median(times)
}

const sessionPath = fileURLToPath(new URL("../examples/session/agent-session.json", import.meta.url))
const openAi = JSON.parse(readFileSync(sessionPath, "utf8")) as unknown
const neutral = Either.getOrThrow(OpenAiChat.decodeResult(openAi)).transcript

/** The session in another format: that adapter's fresh encoding of the neutral transcript. */
const inFormat = (adapter: Adapter.Adapter, seed: unknown): unknown =>
  Either.getOrThrow(adapter.decodeResult(seed)).encode(neutral)

const hello = [{ role: "user", content: "hello" }]
const formats: ReadonlyArray<{ readonly name: string; readonly adapter: Adapter.Adapter; readonly document: unknown }> =
  [
    { name: "OpenAI chat", adapter: OpenAiChat.adapter, document: openAi },
    {
      name: "Anthropic messages",
      adapter: AnthropicMessages.adapter,
      document: inFormat(AnthropicMessages.adapter, hello)
    },
    { name: "AI SDK messages", adapter: AiSdkMessages.adapter, document: inFormat(AiSdkMessages.adapter, hello) },
    {
      name: "@effect/ai Prompt",
      adapter: EffectAiPrompt.adapter,
      document: inFormat(EffectAiPrompt.adapter, Prompt.make("hello"))
    }
  ]

const rows = formats.map(({ adapter, document, name }) => {
  const text = JSON.stringify(document)
  const decoded = Either.getOrThrow(adapter.decodeResult(document))
  const baseline = sample(() => JSON.stringify(JSON.parse(text)))
  const decode = sample(() => adapter.decodeResult(document))
  const roundTrip = sample(() => {
    const again = Either.getOrThrow(adapter.decodeResult(document))
    return again.encode(again.transcript)
  })
  return [
    name,
    `${Array.isArray(document) ? document.length : decoded.transcript.length}`,
    formatMs(baseline),
    formatMs(decode),
    `${(decode / baseline).toFixed(2)}×`,
    formatMs(roundTrip),
    `${(roundTrip / baseline).toFixed(2)}×`
  ]
})

console.log(
  `Adapters: decoding the ${neutral.length}-message example session, against JSON.parse + JSON.stringify of the same document (medians)`
)
printTable(
  ["format", "native messages", "parse+stringify", "decode", "ratio", "decode + encode unchanged", "ratio"],
  rows
)
