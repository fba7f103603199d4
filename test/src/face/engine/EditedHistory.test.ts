/**
 * A message is the same only if its content is the same: a history edited to
 * the same length, at any position and of any kind, after the engine saw (and
 * compacted) it, gives a view with the new text and never the old. Through
 * `Compactor.checkpoint`, `serve`'s `POST /v1/compact` and the proxy (one
 * worker, and two workers alternating on one PostgreSQL), on both Effects; the
 * Promise API's ways are EditedHistoryPromise.test.ts.
 */
import { describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as EditedHistories from "../../../support/EditedHistories.js"
import type * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as HttpTestServer from "../../../support/HttpTestServer.js"
import { effectProp } from "../../../support/Property.js"
import * as ProxyServer from "../../../support/ProxyServer.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

let run = 0

describe("an edited history, through Compactor.checkpoint", () => {
  const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
  effectProp(
    "the view of a history edited to the same length carries the new text, never the old",
    [EditedHistories.edited()],
    ([edit]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const call = (messages: ReadonlyArray<any>, sessionId: string, window: number) =>
          Effect.gen(function*() {
            const decoded = yield* OpenAiChat.adapter.decode(messages)
            const { transcript } = decoded
            const checkpoint = yield* compactor.checkpoint({
              sessionId,
              transcript,
              model: "gpt-test",
              contextWindow: window
            })
            return decoded.encode(checkpoint.view) as ReadonlyArray<any>
          })
        const sessionId = `edited-checkpoint-${process.pid}-${++run}`
        yield* call(edit.before.slice(0, edit.grownFrom), sessionId, edit.window)
        yield* call(edit.before, sessionId, edit.window)
        const view = yield* call(edit.after, sessionId, edit.window)
        EditedHistories.holds(view, edit)
      }).pipe(Effect.provide(engine), Effect.orDie),
    { fastCheck: { numRuns: 40 } }
  )
})

describe("an edited history, through serve's POST /v1/compact", () => {
  effectProp(
    "two servers alternating on one folder: the view carries the new text, never the old",
    [EditedHistories.edited({ maxTurns: 20 })],
    ([edit]) =>
      Effect.scoped(Effect.gen(function*() {
        const directory = yield* Effect.acquireRelease(
          Effect.sync(EditedHistories.folder),
          (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
        )
        const servers = [yield* HttpTestServer.serve({ directory }), yield* HttpTestServer.serve({ directory })]
        const workers = servers.map(({ base }) => (messages: ReadonlyArray<any>, sessionId: string, window: number) =>
          fetch(`${base}/v1/compact`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ transcript: messages, sessionId, window, format: "openai" })
          }).then(async (response) => {
            const body = await response.json() as any
            if (response.status !== 200) throw new Error(`serve answered ${response.status}: ${JSON.stringify(body)}`)
            return body.output as ReadonlyArray<any>
          })
        )
        EditedHistories.holds(yield* Effect.promise(() => EditedHistories.callsOf([workers[0]!], edit)), edit)
        EditedHistories.holds(yield* Effect.promise(() => EditedHistories.callsOf(workers, edit)), edit)
      })),
    { fastCheck: { numRuns: 6 } }
  )
})

/** The proxy on a free port in front of `upstream`, on the given engine layer. */
const proxyOn = <E>(fake: FakeUpstream.FakeUpstream, engine: Layer.Layer<Compactor.Compactor, E>) =>
  ProxyServer.serve({ upstream: fake.url, window: 3_000 }, engine)

/** A worker of the proxy: what the upstream received for the messages sent through it. */
const throughProxy =
  (fake: FakeUpstream.FakeUpstream, base: string) =>
  (messages: ReadonlyArray<any>, sessionId: string, window: number): Promise<ReadonlyArray<any>> =>
    fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: "Bearer sk-edited",
        [Proxy.sessionHeader]: sessionId,
        [Proxy.windowHeader]: String(window)
      },
      body: JSON.stringify({ model: "gpt-test", messages })
    }).then(async (response) => {
      await response.text()
      if (response.status !== 200) throw new Error(`the proxy answered ${response.status}`)
      return fake.received.at(-1)!.body.messages as ReadonlyArray<any>
    })

const { upstream } = ProxyServer

describe("an edited history, through the proxy", () => {
  effectProp(
    "one worker: what the upstream receives carries the new text, never the old",
    [EditedHistories.edited({ maxTurns: 20 })],
    ([edit]) =>
      Effect.scoped(Effect.gen(function*() {
        const fake = yield* upstream
        const base = yield* proxyOn(
          fake,
          Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
        )
        EditedHistories.holds(
          yield* Effect.promise(() => EditedHistories.callsOf([throughProxy(fake, base)], edit)),
          edit
        )
      })),
    { fastCheck: { numRuns: 8 } }
  )
})

describe.skipIf(SqlDatabases.postgres.skip !== undefined)(
  `an edited history, through proxy workers on one PostgreSQL${
    SqlDatabases.postgres.skip === undefined ? "" : ` (skipped: ${SqlDatabases.postgres.skip})`
  }`,
  () => {
    effectProp(
      "two workers alternating: what the upstream receives carries the new text, never the old",
      [EditedHistories.edited({ maxTurns: 20 })],
      ([edit]) =>
        Effect.scoped(Effect.gen(function*() {
          const fake = yield* upstream
          const workers: Array<ReturnType<typeof throughProxy>> = []
          for (let i = 0; i < 2; i++) {
            const directory = yield* Effect.acquireRelease(
              Effect.sync(EditedHistories.folder),
              (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
            )
            const options = {
              upstream: fake.url,
              window: 3_000,
              databaseUrl: SqlDatabases.postgres.url!,
              directory,
              env: () => ({})
            }
            workers.push(throughProxy(fake, yield* proxyOn(fake, Server.layerEngine(options))))
          }
          EditedHistories.holds(yield* Effect.promise(() => EditedHistories.callsOf(workers, edit)), edit)
        })),
      { fastCheck: { numRuns: 6 } }
    )
  }
)
