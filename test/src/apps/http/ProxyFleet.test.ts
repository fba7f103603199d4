/**
 * Proxy workers on one PostgreSQL database (`proxy --database-url`): a
 * session whose requests alternate between two workers gets what it gets on
 * one worker, byte for byte; one state is saved per compaction; a recall
 * handle written by one worker resolves through the other, for its session only.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import { assert } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

const upstream = Effect.acquireRelease(
  Effect.promise(async () => {
    const fake = await FakeUpstream.start()
    // A provider's count: about a token per four characters of what it was sent.
    fake.usageOf = (request) => Math.ceil(request.text.length / 4)
    return fake
  }),
  (fake) => Effect.promise(() => fake.close())
)

const folder = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-fleet-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A proxy worker as `proxy --database-url URL --dir <its own folder> --recall` builds it; its base URL. */
const worker = (fake: FakeUpstream.FakeUpstream, url: string) =>
  Effect.gen(function*() {
    const directory = yield* folder
    const options = { upstream: fake.url, window: 16_000, recall: true, databaseUrl: url, directory, env: () => ({}) }
    const server = Proxy.layer(options).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(Server.layerEngine(options)),
      Layer.provide(Compat.nodeHttpClient)
    )
    const address = HttpCompat.tcpAddress(
      Context.get(yield* Layer.build(Layer.orDie(server)), HttpCompat.HttpServer.HttpServer).address
    )
    if (address === undefined) throw new Error("not a TCP address")
    return { base: `http://127.0.0.1:${address.port}`, directory }
  })

const post = (base: string, sessionId: string, messages: ReadonlyArray<unknown>, stream = false) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", [Proxy.sessionHeader]: sessionId },
      body: JSON.stringify({
        model: "gpt-test",
        messages,
        ...(stream ? { stream: true, stream_options: { include_usage: true } } : {})
      })
    })
    return {
      status: response.status,
      report: response.headers.get(Proxy.reportHeader) ?? "",
      text: await response.text()
    }
  })

/** The session's turns: its history growing request by request, as an agent sends it. */
const turns = Array.from({ length: 8 }, (_, i) => session.slice(0, 60 + i * 40))

/** What the upstream got and the client was told, request by request, with the workers taking turns. */
const replay = (workers: ReadonlyArray<string>, fake: FakeUpstream.FakeUpstream, sessionId: string) =>
  Effect.gen(function*() {
    const reports: Array<string> = []
    const from = fake.received.length
    for (const [i, messages] of turns.entries()) {
      // Every third answer streamed: its usage comes in the stream's last chunk.
      const answer = yield* post(workers[i % workers.length]!, sessionId, messages, i % 3 === 2)
      assert.strictEqual(answer.status, 200, answer.text)
      reports.push(answer.report)
    }
    return { reports, sent: fake.received.slice(from).map((request) => request.text) }
  })

const query = <A extends object>(url: string, statement: string) =>
  Effect.flatMap(Compat.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(
    Effect.provide(TestCompat.pgClient(url)),
    Effect.orDie
  )

SqlDatabases.describeOn(SqlDatabases.postgres, "proxy workers on one database", () => {
  it.scopedLive("two workers taking turns on a session send the upstream the same bodies as one worker, byte for byte, and save one state per compaction", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const alone = yield* SqlDatabases.postgres.database
      const fleet = yield* SqlDatabases.postgres.database
      const one = yield* worker(fake, alone.url)
      const [a, b] = [yield* worker(fake, fleet.url), yield* worker(fake, fleet.url)]
      const single = yield* replay([one.base], fake, "fleet-session")
      const pair = yield* replay([a.base, b.base], fake, "fleet-session")
      const compacted = pair.reports.filter((report) => report.startsWith("compacted;")).length
      assert.isAtLeast(compacted, 2, pair.reports.join("\n"))
      assert.deepStrictEqual(pair.reports, single.reports, "the header reports the same counts")
      for (const [i, text] of pair.sent.entries()) assert.strictEqual(text, single.sent[i], `request ${i}`)
      const states = yield* query<{ readonly compactions: number }>(
        fleet.url,
        "SELECT compactions FROM compaction_state WHERE session_id = 'fleet-session'"
      )
      assert.deepStrictEqual(
        states.map((row) => Number(row.compactions)),
        [compacted],
        "one saved state per compaction, none lost or doubled"
      )
      for (const dir of [a.directory, b.directory]) {
        assert.deepStrictEqual(Fs.readdirSync(dir), [], "nothing is written in a worker's folder")
      }
    }))

  it.scopedLive("two workers given the same compacting request at once save one state: one compacts, the other sends the winner's view", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { url } = yield* SqlDatabases.postgres.database
      const [a, b] = [yield* worker(fake, url), yield* worker(fake, url)]
      const [one, other] = yield* Effect.all([
        post(a.base, "raced", session.slice(0, 220)),
        post(b.base, "raced", session.slice(0, 220))
      ], { concurrency: 2 })
      const reports = [one.report, other.report].sort()
      assert.match(reports[0]!, /^compacted; cause=trigger;/, reports.join("\n"))
      assert.match(reports[1]!, /^restored; from=saved-compaction;/, reports.join("\n"))
      const [first, second] = fake.received.slice(-2).map((request) => request.text)
      assert.strictEqual(first, second, "both workers send the one saved compaction's view")
      const states = yield* query<{ readonly compactions: number }>(
        url,
        "SELECT compactions FROM compaction_state WHERE session_id = 'raced'"
      )
      assert.deepStrictEqual(states.map((row) => Number(row.compactions)), [1])
      const entries = yield* query<{ readonly entries: number }>(
        url,
        "SELECT COUNT(DISTINCT entry) AS entries FROM transcript_archive WHERE session_id = 'raced' AND entry LIKE 'compaction-%'"
      )
      assert.strictEqual(Number(entries[0]!.entries), 1, "the moved-out messages are archived once")
    }))

  it.scopedLive("a recall handle that worker A archived is answered through worker B; a handle of another session is refused", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { url } = yield* SqlDatabases.postgres.database
      const [a, b] = [yield* worker(fake, url), yield* worker(fake, url)]
      const first = yield* post(a.base, "recall-session", session.slice(0, 200))
      assert.match(first.report, /^compacted;/)
      // A tool result the compaction moved out, by the handle the block lists.
      const block = fake.received.at(-1)!.text
      const original = session.slice(0, 200).find((message: any) =>
        message.role === "tool" && message.content.length > 400 &&
        block.includes(Recall.handleOf("recall-session", message.content))
      )
      assert.isDefined(original, "the block lists a handle of a moved-out result")
      const handle = Recall.handleOf("recall-session", original.content)
      const call = (id: string, args: unknown) => ({
        id,
        type: "function",
        function: { name: Recall.toolName, arguments: JSON.stringify(args) }
      })
      fake.script.push({
        _tag: "json",
        status: 200,
        body: {
          id: "chatcmpl-r",
          object: "chat.completion",
          created: 1,
          model: "gpt-test",
          choices: [{
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                call("recall-own", { handle }),
                call("recall-foreign", { handle: Recall.handleOf("another-session", original.content) })
              ]
            },
            finish_reason: "tool_calls"
          }],
          usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 }
        }
      })
      const second = yield* post(b.base, "recall-session", session.slice(0, 201))
      assert.strictEqual(second.status, 200, second.text)
      const followUp = fake.received.at(-1)!.body.messages.filter((message: any) =>
        message.role === "tool" && String(message.tool_call_id).startsWith("recall")
      )
      const [own, foreign] = followUp.map((message: any) => String(message.content))
      assert.include(own, original.content.slice(0, 300), "worker B reads what worker A archived")
      assert.match(foreign!, /^context_recall failed \(other-session\)/)
      assert.notInclude(foreign!, original.content.slice(0, 200))
    }))
})
