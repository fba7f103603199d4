/**
 * A message is the same only if its content is the same (issue 43): a
 * history edited to the same length, at any position and of any kind, after
 * the engine saw (and compacted) it, gives a view with the new text and
 * never the old. Through `Compactor.checkpoint`, the Promise API (memory,
 * SQLite and PostgreSQL stores, one worker and two alternating ones),
 * `serve`'s `POST /v1/compact` and the proxy (one worker, and two workers
 * alternating on one PostgreSQL).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as EditedHistories from "../../../support/EditedHistories.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as HttpTestServer from "../../../support/HttpTestServer.js"
import * as ProxyServer from "../../../support/ProxyServer.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

let run = 0
const nextSession = () => `edited-${process.pid}-${++run}`

/**
 * The calls of one property run over a way to compact: the history grown to part of it, then whole (the engine
 * remembers what it sent, and may compact), then edited. Each call is given to `workers[i % workers.length]`, so
 * two workers alternate. The edited history's view must not carry the old marker.
 */
const callsOf = async (
  workers: ReadonlyArray<
    (messages: ReadonlyArray<any>, sessionId: string, window: number) => Promise<ReadonlyArray<any>>
  >,
  edit: EditedHistories.Edited
): Promise<ReadonlyArray<any>> => {
  const sessionId = nextSession()
  await workers[0]!(edit.before.slice(0, edit.grownFrom), sessionId, edit.window)
  await workers[1 % workers.length]!(edit.before, sessionId, edit.window)
  return workers[2 % workers.length]!(edit.after, sessionId, edit.window)
}

const holds = (view: ReadonlyArray<any>, edit: EditedHistories.Edited): void => {
  const violation = EditedHistories.violation(view, edit)
  if (violation !== undefined) assert.fail(violation)
}

const folder = () => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-edited-"))

describe("an edited history, through Compactor.checkpoint", () => {
  const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
  it.effect.prop(
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
        const sessionId = nextSession()
        yield* call(edit.before.slice(0, edit.grownFrom), sessionId, edit.window)
        yield* call(edit.before, sessionId, edit.window)
        const view = yield* call(edit.after, sessionId, edit.window)
        holds(view, edit)
      }).pipe(Effect.provide(engine), Effect.orDie),
    { fastCheck: { numRuns: 40 } }
  )
})

describe("an edited history, through the Promise API", () => {
  const compactors: Array<CompactorPromise.Compactor> = []
  const directory = folder()
  const open = async (options: Parameters<typeof CompactorPromise.createCompactor>[0]) => {
    const compactor = await CompactorPromise.createCompactor(options)
    compactors.push(compactor)
    return (messages: ReadonlyArray<any>, sessionId: string, window: number) =>
      compactor.compact(messages as Array<any>, { sessionId, contextWindow: window }).then((result) =>
        result.messages as ReadonlyArray<any>
      )
  }
  const ways: Record<string, Array<Awaited<ReturnType<typeof open>>>> = {}
  beforeAll(async () => {
    ways["memory"] = [await open({})]
    ways["SQLite, one worker"] = [await open({ directory })]
    ways["SQLite, two workers alternating"] = [ways["SQLite, one worker"][0]!, await open({ directory })]
  })
  afterAll(async () => {
    await Promise.all(compactors.map((compactor) => compactor.close()))
    Fs.rmSync(directory, { recursive: true, force: true })
  })

  for (const way of ["memory", "SQLite, one worker", "SQLite, two workers alternating"]) {
    it.effect.prop(
      `${way}: the view of a history edited to the same length carries the new text, never the old`,
      [EditedHistories.edited()],
      ([edit]) => Effect.promise(() => callsOf(ways[way]!, edit)).pipe(Effect.map((view) => holds(view, edit))),
      { fastCheck: { numRuns: 25 } }
    )
  }
})

describe.skipIf(SqlDatabases.postgres.skip !== undefined)(
  `an edited history on PostgreSQL${
    SqlDatabases.postgres.skip === undefined ? "" : ` (skipped: ${SqlDatabases.postgres.skip})`
  }`,
  () => {
    const compactors: Array<CompactorPromise.Compactor> = []
    const workers: Array<
      (messages: ReadonlyArray<any>, sessionId: string, window: number) => Promise<ReadonlyArray<any>>
    > = []
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) {
        const compactor = await CompactorPromise.createCompactor({ databaseUrl: SqlDatabases.postgres.url! })
        compactors.push(compactor)
        workers.push((messages, sessionId, window) =>
          compactor.compact(messages as Array<any>, { sessionId, contextWindow: window }).then((result) =>
            result.messages as ReadonlyArray<any>
          )
        )
      }
    })
    afterAll(() => Promise.all(compactors.map((compactor) => compactor.close())))

    it.effect.prop(
      "one worker: the view of a history edited to the same length carries the new text, never the old",
      [EditedHistories.edited()],
      ([edit]) => Effect.promise(() => callsOf([workers[0]!], edit)).pipe(Effect.map((view) => holds(view, edit))),
      { fastCheck: { numRuns: 15 } }
    )
    it.effect.prop(
      "two workers alternating: the view of a history edited to the same length carries the new text, never the old",
      [EditedHistories.edited()],
      ([edit]) => Effect.promise(() => callsOf(workers, edit)).pipe(Effect.map((view) => holds(view, edit))),
      { fastCheck: { numRuns: 15 } }
    )
  }
)

describe("an edited history, through serve's POST /v1/compact", () => {
  it.scopedLive.prop(
    "two servers alternating on one folder: the view carries the new text, never the old",
    [EditedHistories.edited({ maxTurns: 20 })],
    ([edit]) =>
      Effect.gen(function*() {
        const directory = yield* Effect.acquireRelease(
          Effect.sync(folder),
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
        holds(yield* Effect.promise(() => callsOf([workers[0]!], edit)), edit)
        holds(yield* Effect.promise(() => callsOf(workers, edit)), edit)
      }),
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
  it.scopedLive.prop(
    "one worker: what the upstream receives carries the new text, never the old",
    [EditedHistories.edited({ maxTurns: 20 })],
    ([edit]) =>
      Effect.gen(function*() {
        const fake = yield* upstream
        const base = yield* proxyOn(
          fake,
          Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
        )
        holds(yield* Effect.promise(() => callsOf([throughProxy(fake, base)], edit)), edit)
      }),
    { fastCheck: { numRuns: 8 } }
  )
})

describe.skipIf(SqlDatabases.postgres.skip !== undefined)(
  `an edited history, through proxy workers on one PostgreSQL${
    SqlDatabases.postgres.skip === undefined ? "" : ` (skipped: ${SqlDatabases.postgres.skip})`
  }`,
  () => {
    it.scopedLive.prop(
      "two workers alternating: what the upstream receives carries the new text, never the old",
      [EditedHistories.edited({ maxTurns: 20 })],
      ([edit]) =>
        Effect.gen(function*() {
          const fake = yield* upstream
          const workers: Array<ReturnType<typeof throughProxy>> = []
          for (let i = 0; i < 2; i++) {
            const directory = yield* Effect.acquireRelease(
              Effect.sync(folder),
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
          holds(yield* Effect.promise(() => callsOf(workers, edit)), edit)
        }),
      { fastCheck: { numRuns: 6 } }
    )
  }
)

describe("an edit inside the compacted span", () => {
  it.effect("compacts again on the next call, from the new text: the block quotes the user's new words, never the old", () =>
    Effect.promise(async () => {
      const directory = folder()
      const workers = [
        await CompactorPromise.createCompactor({ directory }),
        await CompactorPromise.createCompactor({ directory })
      ]
      try {
        const turns = Array.from({ length: 30 }, (_, t) => ({ words: 12, output: 150, tool: t % 2 === 0 }))
        const before = EditedHistories.historyOf(turns, [
          "0a1b2c3d",
          "4e5f6a7b",
          "8c9d0e1f",
          "2a3b4c5d",
          "6e7f8a9b",
          "0c1d2e3f",
          "4a5b6c7d"
        ])
        const first = await workers[0]!.compact(before, { sessionId: "span", contextWindow: 3_000 })
        assert.isDefined(first.report, "the history was not compacted")
        // A user message the block replaced (not the first, which stays pinned verbatim).
        const replaced = first.report!.replaced
        const index = before.findIndex((message, at) =>
          at > 1 && message.role === "user" && at < before.length - 10 &&
          JSON.stringify(first.messages).includes(EditedHistories.markerOf(message)!)
        )
        assert.isAbove(index, 1, `no user message of the span is quoted in the block (${JSON.stringify(replaced)})`)
        const oldMarker = EditedHistories.markerOf(before[index])!
        const newMarker = `${oldMarker.slice(0, -8)}ffffffff`
        const after = EditedHistories.withMarker(before, index, newMarker)
        for (const worker of [workers[1]!, workers[0]!]) {
          const again = await worker.compact(after, { sessionId: "span", contextWindow: 3_000 })
          assert.notInclude(JSON.stringify(again.messages), oldMarker)
          assert.include(JSON.stringify(again.messages), newMarker)
        }
      } finally {
        await Promise.all(workers.map((worker) => worker.close()))
        Fs.rmSync(directory, { recursive: true, force: true })
      }
    }))
})
