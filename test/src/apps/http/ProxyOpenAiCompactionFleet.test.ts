/**
 * OpenAI's compaction emulated by proxy workers on one PostgreSQL database:
 * a compaction item one worker signed is verified and expanded by another,
 * from the session's compaction the store holds, with the key the store keeps.
 */
import { it } from "#test-compat"
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import OpenAI from "openai"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Histories from "../../../support/Histories.js"
import * as ProxyServer from "../../../support/ProxyServer.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const input: ReadonlyArray<any> = Histories.toResponsesInput(
  JSON.parse(Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8"))
).slice(0, 120)

const { upstream } = ProxyServer

const folder = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-openai-fleet-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A proxy worker as `proxy --database-url URL --dir <its own folder>` builds it (or on its folder alone); its client. */
const worker = (fake: FakeUpstream.FakeUpstream, url: string | undefined, dir?: string) =>
  Effect.gen(function*() {
    const directory = dir ?? (yield* folder)
    const options = {
      upstream: fake.url,
      window: 16_000,
      directory,
      env: () => ({}),
      ...(url === undefined ? {} : { databaseUrl: url })
    }
    const base = yield* ProxyServer.serve(options, Server.layerEngine(options))
    return new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-fleet", maxRetries: 0 })
  })

const next = { role: "user", content: "Now run the tests again." }

const roundTrip = (first: OpenAI, second: OpenAI, fake: FakeUpstream.FakeUpstream) =>
  Effect.gen(function*() {
    const triggered = yield* Effect.promise(() =>
      first.responses.create({ model: "gpt-test", input: [...input, { type: "compaction_trigger" }] as any })
    )
    assert.strictEqual(triggered.output.length, 1)
    assert.strictEqual(triggered.output[0]!.type, "compaction")
    yield* Effect.promise(() =>
      second.responses.create({ model: "gpt-test", input: [...triggered.output, next] as any })
    )
    const sent = fake.received.at(-1)!.body
    assert.strictEqual(sent.input.length, 2)
    assert.isAbove(sent.input[0].content[0].text.length, 200)
    assert.deepStrictEqual(sent.input[1], next)
    return triggered.output[0] as any
  })

SqlDatabases.describeOn(SqlDatabases.postgres, "OpenAI compaction items across proxy workers", () => {
  it.scopedLive("an item worker A signed is expanded by worker B from the shared store, and both continue the session", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { url } = yield* SqlDatabases.postgres.database
      const [a, b] = [yield* worker(fake, url), yield* worker(fake, url)]
      const item = yield* roundTrip(a, b, fake)
      // B compacts again from A's item; A reads B's.
      const again = yield* Effect.promise(() =>
        b.responses.create({ model: "gpt-test", input: [item, next, { type: "compaction_trigger" }] as any })
      )
      assert.strictEqual(again.output.length, 1)
      yield* Effect.promise(() => a.responses.create({ model: "gpt-test", input: [...again.output, next] as any }))
      assert.strictEqual(fake.received.at(-1)!.body.input.length, 2)
    }))
})

it.scopedLive("on a folder's SQLite files the key and the compaction outlive the process: a restarted proxy expands the item", () =>
  Effect.gen(function*() {
    const fake = yield* upstream
    const directory = yield* folder
    const item = yield* Effect.scoped(Effect.gen(function*() {
      const first = yield* worker(fake, undefined, directory)
      return yield* roundTrip(first, first, fake)
    }))
    const restarted = yield* worker(fake, undefined, directory)
    yield* Effect.promise(() => restarted.responses.create({ model: "gpt-test", input: [item, next] as any }))
    assert.strictEqual(fake.received.at(-1)!.body.input.length, 2)
    assert.strictEqual(
      fake.received.at(-1)!.body.input[0].content[0].text,
      fake.received.at(-2)!.body.input[0].content[0].text
    )
  }))
