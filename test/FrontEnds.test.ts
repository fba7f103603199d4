/**
 * One request path (issue 29, item 3): every front end gives the view the
 * command line gives. The example session, and each transcript of
 * `../shared/transcripts/` when that folder exists, compacted at 8k, 32k and
 * 128k with the offline summariser through `compact` (in process), the
 * Promise API, `POST /v1/compact`, the proxy and the compacting @effect/ai
 * `LanguageModel`, each over a folder of its own and the session named alike:
 * the messages each sends on are the command line's, compared as JSON (the
 * @effect/ai model's as an encoded `Prompt`, against `compact --format
 * effect-ai` of the same prompt).
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as CompactingLanguageModel from "../src/apps/effect-ai/CompactingLanguageModel.js"
import * as EffectAiPrompt from "../src/apps/effect-ai/EffectAiPrompt.js"
import * as Proxy from "../src/apps/http/Proxy.js"
import * as Promised from "../src/apps/promise/index.js"
import * as OpenAiChat from "../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as Production from "../src/face/layers/Production.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as FakeUpstream from "./support/FakeUpstream.js"
import * as HttpTestServer from "./support/HttpTestServer.js"
import * as Program from "./support/Program.js"

const sharedTranscripts = NodePath.join(Program.root, "..", "shared", "transcripts")
const haveShared = Fs.existsSync(sharedTranscripts)
if (!haveShared) {
  process.stderr.write(`FrontEnds.test: ${sharedTranscripts} is absent: only the example session is compacted\n`)
}

const inputs: ReadonlyArray<string> = [
  NodePath.join(Program.root, "examples/session/agent-session.json"),
  ...(haveShared
    ? Fs.readdirSync(sharedTranscripts).filter((name) => name.endsWith(".json")).sort().map((name) =>
      NodePath.join(sharedTranscripts, name)
    )
    : [])
]
const windows = [8_000, 32_000, 128_000] as const
const model = "offline"

const encodePrompt = Schema.encodeSync(Prompt.Prompt)
const finish: Response.PartEncoded = {
  type: "finish",
  reason: "stop",
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
}

/** A model that records each prompt it is sent. */
const recordingModel = (received: Array<Prompt.Prompt>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) => Effect.sync(() => (received.push(options.prompt), [finish])),
      streamText: () => Stream.make(finish as Response.StreamPartEncoded)
    })
  )

interface FrontEnds {
  readonly folder: string
  readonly compactor: Promised.Compactor
  readonly serve: string
  readonly proxy: string
  readonly upstream: FakeUpstream.FakeUpstream
  /** The @effect/ai model's engine over a folder of its own, and the model it wraps, which records its prompts. */
  readonly effectAi: ManagedRuntime.ManagedRuntime<LanguageModel.LanguageModel | Compactor.Compactor, unknown>
  readonly received: Array<Prompt.Prompt>
}

let scope: Scope.CloseableScope | undefined
let ends: FrontEnds | undefined

beforeAll(async () => {
  const folder = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-front-ends-"))
  const under = (name: string) => {
    Fs.mkdirSync(NodePath.join(folder, name), { recursive: true })
    return NodePath.join(folder, name)
  }
  const opened = Effect.runSync(Scope.make())
  scope = opened
  const upstream = await FakeUpstream.start()
  const servers = await Effect.runPromise(
    Effect.gen(function*() {
      const serve = yield* HttpTestServer.serve({ directory: under("serve"), model, env: () => ({}) })
      const proxy = yield* Layer.build(
        Proxy.layerNode({ upstream: upstream.url, port: 0, directory: under("proxy"), env: () => ({}) })
      )
      const address = Context.get(proxy, HttpServer.HttpServer).address
      if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
      return { serve: serve.base, proxy: `http://127.0.0.1:${address.port}` }
    }).pipe(Scope.extend(opened))
  )
  const received: Array<Prompt.Prompt> = []
  const engine = Production.layerEngine({
    engine: { policies: builtInPolicies },
    services: Production.layerSqlite({ directory: under("effect-ai"), env: () => ({}) })
  })
  ends = {
    folder,
    compactor: await Promised.createCompactor({ directory: under("promise"), model, env: {} }),
    ...servers,
    upstream,
    effectAi: ManagedRuntime.make(Layer.merge(engine, recordingModel(received))),
    received
  }
  Fs.mkdirSync(NodePath.join(folder, "cases"))
}, 60_000)

afterAll(async () => {
  await ends?.compactor.close()
  await ends?.effectAi.dispose()
  await ends?.upstream.close()
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  if (ends !== undefined) Fs.rmSync(ends.folder, { recursive: true, force: true })
})

/** `compact` in process over a state folder of its own: the text it wrote. */
const viaCli = (folder: string, input: string, window: number, format: "openai" | "effect-ai") =>
  Effect.gen(function*() {
    const out = `${input}.out`
    const ran = yield* Program.inProcess([
      "compact",
      input,
      "--format",
      format,
      "--window",
      String(window),
      "--out",
      out,
      "--state",
      NodePath.join(folder, "cli", "state.db"),
      "--cache",
      NodePath.join(folder, "cli", "cache.db")
    ])
    assert.strictEqual(ran.exitCode, 0, ran.stderr)
    return Fs.readFileSync(out, "utf8")
  })

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
    return { status: response.status, text: await response.text() }
  })

/** The same view, as JSON: `actual` (what a front end sent on) against the command line's. */
const assertSameView = (frontEnd: string, actual: unknown, expected: unknown) => {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)]
  if (a !== b) {
    let at = 0
    while (at < a.length && a[at] === b[at]) at++
    assert.fail(
      `${frontEnd} differs from the CLI at character ${at}: ${a.slice(at, at + 120)} | ${b.slice(at, at + 120)}`
    )
  }
}

describe("one request path: every front end gives the command line's view", () => {
  for (const input of inputs) {
    for (const window of windows) {
      it.live(`${NodePath.basename(input)} at ${window / 1_000}k`, () =>
        Effect.gen(function*() {
          const { compactor, effectAi, folder, proxy, received, serve, upstream } = ends!
          const text = Fs.readFileSync(input, "utf8")
          const document: ReadonlyArray<unknown> = JSON.parse(text)
          // The session is named by the file compact reads; one file, so one session, per case.
          const sessionId = NodePath.join(folder, "cases", `${NodePath.basename(input, ".json")}-${window}.json`)
          Fs.writeFileSync(sessionId, text)
          const cli = JSON.parse(yield* viaCli(folder, sessionId, window, "openai"))
          // At 8k every one of them is compacted: the comparison is of compacted views, not of copies.
          if (window === 8_000) assert.isBelow(cli.length, document.length)

          const promised = yield* Effect.promise(() =>
            compactor.compact(document, { contextWindow: window, sessionId, model })
          )
          assertSameView("the Promise API", promised.messages, cli)

          const served = yield* post(`${serve}/v1/compact`, { transcript: document, window, sessionId, model })
          assert.strictEqual(served.status, 200, served.text)
          assertSameView("POST /v1/compact", JSON.parse(served.text).output, cli)

          const proxied = yield* post(`${proxy}/v1/chat/completions`, { model, messages: document }, {
            [Proxy.sessionHeader]: sessionId,
            "x-context-window": String(window)
          })
          assert.strictEqual(proxied.status, 200, proxied.text)
          assertSameView("the proxy", upstream.received.at(-1)!.body.messages, cli)

          // The @effect/ai model is given a Prompt: compact reads the same prompt as an encoded one.
          const decoded = Either.getOrThrow(OpenAiChat.adapter.decodeResult(document))
          const prompt = EffectAiPrompt.toPrompt(decoded, decoded.transcript)
          const promptPath = sessionId.replace(/\.json$/, ".prompt.json")
          Fs.writeFileSync(promptPath, JSON.stringify(encodePrompt(prompt)))
          const cliPrompt = JSON.parse(yield* viaCli(folder, promptPath, window, "effect-ai"))
          yield* Effect.promise(() =>
            effectAi.runPromise(
              LanguageModel.generateText({ prompt }).pipe(
                Effect.provide(CompactingLanguageModel.layer({ contextWindow: window, model })),
                CompactingLanguageModel.withSession(promptPath)
              )
            )
          )
          assertSameView(
            "the @effect/ai model",
            encodePrompt(received.at(-1)!),
            encodePrompt(Prompt.make(cliPrompt.content))
          )
        }))
    }
  }
})
