/**
 * Responsiveness of the server: how long the event loop of `serve` is
 * blocked while it answers one `POST /v1/compact` of a 50,000-message
 * transcript (OpenAI chat messages, the session of `bench/recorded.ts`), and
 * what that costs.
 *
 * The server is the real one (`HttpServer.layerNode` on 127.0.0.1, port 0, a
 * fresh folder each run, the offline summariser), in this process; the client
 * is `node:http` with the body encoded beforehand and the answer kept as
 * bytes, so that the client adds next to nothing to the loop. Meanwhile a
 * 1 ms `setInterval` probe records the longest gap between its ticks, and a
 * `GET /v1/settings/compaction` is due 20 ms after the last one was answered,
 * one at a time: the longest wait from when one was due to its answer is what
 * another client of the server waits at worst.
 *
 * Two servers in the same run, interleaved: the unsliced one (`sliceMs:
 * Infinity`, the offline summariser called in one go: nothing pauses), and
 * the server as shipped (pausing every `Compactor.defaultSliceMs`). The
 * baseline of the ratios is the native `JSON.parse` + `JSON.stringify` of the
 * same body, measured in the same run; the native `JSON.parse` of the body
 * alone is printed too: it is the one piece of the request that cannot be
 * cut. `Json.parse` hands it a body without a literal only the exact reader
 * keeps; a body that may hold one (16 digits in a row, or an exponent-like `7e885`, as the
 * recorded runs' tracebacks do, in hex addresses) goes to the exact reader,
 * which pauses. Both bodies are measured: the session as recorded, and the
 * same with what looks like such a number cut (`withoutInexactHints`).
 *
 * Run: `npx tsx bench/responsive-http.bench.ts` (`--messages N` for another
 * length, `--runs N` for more samples; medians are printed).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Server from "../src/apps/http/HttpServer.js"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as SummarizerOffline from "../src/face/layers/SummarizerOffline.js"
import * as Json from "../src/face/models/Json.js"
import * as Summarizer from "../src/face/services/Summarizer.js"
import { argValue } from "./generate.js"
import { sessionOf, toOpenAI } from "./recorded.js"
import { elapsedMs, formatCount, formatMs, median, now, printTable, probeLoop } from "./timing.js"

const messages = Number(argValue("--messages") ?? "50000") || 50_000
const runs = Number(argValue("--runs") ?? "3") || 3
const window = 128_000

/** The offline summariser as it was before it paused: one synchronous call. */
const offlineInOneGo: Layer.Layer<Summarizer.Summarizer> = Layer.succeed(Summarizer.Summarizer, {
  summarize: (request) => Effect.sync(() => SummarizerOffline.summarize(request.span, request.instructions))
})

interface Started {
  readonly port: number
  readonly close: () => Promise<void>
}

/** A server on a fresh folder: sliced as shipped, or (`Infinity`) never pausing. */
const start = async (sliceMs: number): Promise<Started> => {
  const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-bench-http-"))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      Server.layerNode({
        port: 0,
        directory,
        env: () => ({}),
        maxBodyBytes: 512 * 1_048_576,
        requestTimeoutMs: 600_000,
        ...(Number.isFinite(sliceMs) ? {} : { sliceMs, summarizer: offlineInOneGo })
      }),
      scope
    )
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
  return {
    port: address.port,
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  }
}

/** One request; the answer's status and its body's length in bytes (not decoded). */
const request = (
  port: number,
  method: "GET" | "POST",
  path: string,
  body?: Buffer
): Promise<{ readonly status: number; readonly bytes: number }> =>
  new Promise((resolve, reject) => {
    const outgoing = Http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent: false,
        headers: body === undefined ? {} : { "content-type": "application/json", "content-length": body.length }
      },
      (response) => {
        let bytes = 0
        response.on("data", (chunk: Buffer) => void (bytes += chunk.length))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes }))
        response.on("error", reject)
      }
    )
    outgoing.on("error", reject)
    outgoing.end(body)
  })

interface Sample {
  readonly totalMs: number
  readonly longestGapMs: number
  readonly slowestGetMs: number
  readonly gets: number
  readonly answerBytes: number
}

/** One compaction on a fresh server, with the event loop probed and the settings asked for meanwhile. */
const measure = async (sliceMs: number, body: Buffer): Promise<Sample> => {
  const server = await start(sliceMs)
  try {
    // A first request, so that the routes and the engine are warm.
    await request(server.port, "GET", "/v1/settings/compaction")
    const probe = await probeLoop()
    let done = false
    let slowestGet = 0
    let gets = 0
    // Each GET is due 20 ms after the last answer: its wait counts from then, so that a stall while no GET was in flight counts too.
    const asking = (async () => {
      while (!done) {
        const due = performance.now() + 20
        await new Promise((resolve) => setTimeout(resolve, 20))
        await request(server.port, "GET", "/v1/settings/compaction")
        if (!done) {
          slowestGet = Math.max(slowestGet, performance.now() - due)
          gets++
        }
      }
    })()
    probe.reset()
    const began = now()
    const answer = await request(server.port, "POST", "/v1/compact", body)
    const totalMs = elapsedMs(began)
    const { longestGapMs } = probe.read()
    done = true
    probe.stop()
    await asking
    if (answer.status !== 200) throw new Error(`POST /v1/compact answered ${answer.status}`)
    return { totalMs, longestGapMs, slowestGetMs: slowestGet, gets, answerBytes: answer.bytes }
  } finally {
    await server.close()
  }
}

/** The baseline: the native parse and serialisation of the same body, and the parse alone. */
const native = (text: string): { readonly parseMs: number; readonly bothMs: number } => {
  const began = now()
  const parsed: unknown = JSON.parse(text)
  const parseMs = elapsedMs(began)
  JSON.stringify(parsed)
  return { parseMs, bothMs: elapsedMs(began) }
}

/**
 * The session's messages with nothing in their text that looks like a number
 * only the exact reader keeps: the recorded runs hold hex addresses
 * (`0x79a35627e550`: 16 digits in a row, or `7e885` like an exponent), which
 * send the body to the exact reader; with their digits cut to 15, `e` made
 * `x` and `-0` made `~0`, it goes to the native `JSON.parse`.
 */
const withoutInexactHints = (messages: ReadonlyArray<Record<string, unknown>>): ReadonlyArray<unknown> =>
  JSON.parse(
    JSON.stringify(messages).replace(
      /\d{16,}|\d[eE][+-]?\d{3}|-0/g,
      (hint) => hint.startsWith("-") ? "~0" : hint.replace(/[eE]/g, "x").slice(0, 15)
    )
  )

interface Measured {
  readonly label: string
  readonly bytes: number
  readonly exactReader: boolean
  readonly parseMs: number
  readonly baselineMs: number
  readonly unsliced: ReadonlyArray<Sample>
  readonly sliced: ReadonlyArray<Sample>
}

const main = async () => {
  const session = sessionOf(messages)
  const chat = toOpenAI(session.transcript)
  const bodies = [
    { label: "as recorded", messages: chat as ReadonlyArray<unknown> },
    { label: "hex addresses cut", messages: withoutInexactHints(chat) }
  ].map(({ label, messages }) => {
    const text = JSON.stringify({ transcript: messages, format: "openai", window })
    return { label, text, body: Buffer.from(text, "utf8"), exactReader: Json.mayHoldInexactNumbers(text) }
  })
  console.log(
    `context-compressor HTTP responsiveness: POST /v1/compact of ${
      formatCount(session.transcript.length)
    } OpenAI chat messages (${session.source}), bodies of ${
      bodies.map((b) => `${(b.body.length / 1e6).toFixed(1)} MB`).join(" and ")
    }, window ${formatCount(window)}, offline summariser, the server in this process; ${runs} runs each, medians`
  )
  const measured: Array<Measured> = []
  for (const { body, exactReader, label, text } of bodies) {
    const unsliced: Array<Sample> = []
    const sliced: Array<Sample> = []
    const baselines: Array<{ readonly parseMs: number; readonly bothMs: number }> = []
    // Interleaved, so that a slower moment of the machine falls on all three.
    for (let run = 0; run < runs; run++) {
      baselines.push(native(text))
      unsliced.push(await measure(Number.POSITIVE_INFINITY, body))
      sliced.push(await measure(Compactor.defaultSliceMs, body))
    }
    measured.push({
      label,
      bytes: body.length,
      exactReader,
      parseMs: median(baselines.map((b) => b.parseMs)),
      baselineMs: median(baselines.map((b) => b.bothMs)),
      unsliced,
      sliced
    })
  }
  const rows: Array<Array<string>> = []
  for (const m of measured) {
    const reader = m.exactReader ? "exact reader, pausing" : "native JSON.parse, one piece"
    const row = (label: string, samples: ReadonlyArray<Sample>) => {
      const totalMs = median(samples.map((s) => s.totalMs))
      const longestGapMs = median(samples.map((s) => s.longestGapMs))
      return [
        `${m.label} (${reader})`,
        label,
        formatMs(longestGapMs),
        formatMs(longestGapMs - m.parseMs),
        formatMs(median(samples.map((s) => s.slowestGetMs))),
        formatCount(median(samples.map((s) => s.gets))),
        formatMs(totalMs),
        `${(totalMs / m.baselineMs).toFixed(2)}x`
      ]
    }
    rows.push([
      `${m.label} (${reader})`,
      "baseline: native JSON.parse + JSON.stringify",
      "-",
      "-",
      "-",
      "-",
      formatMs(m.baselineMs),
      "1.00x"
    ])
    rows.push([
      `${m.label} (${reader})`,
      "native JSON.parse alone (cannot be cut)",
      formatMs(m.parseMs),
      "0",
      "-",
      "-",
      formatMs(m.parseMs),
      `${(m.parseMs / m.baselineMs).toFixed(2)}x`
    ])
    rows.push(row("server, unsliced (sliceMs: Infinity)", m.unsliced))
    rows.push(row(`server, sliced (pauses every ${Compactor.defaultSliceMs} ms)`, m.sliced))
  }
  printTable([
    "body",
    "run",
    "longest stall ms",
    "stall - native parse ms",
    "slowest GET wait ms",
    "GETs answered",
    "total ms",
    "total / baseline"
  ], rows)
  for (const m of measured) {
    const slicedMs = median(m.sliced.map((s) => s.totalMs))
    const unslicedMs = median(m.unsliced.map((s) => s.totalMs))
    console.log(
      `${m.label}: sliced / unsliced total ${(slicedMs / unslicedMs).toFixed(2)}x; longest stall ${
        formatMs(median(m.sliced.map((s) => s.longestGapMs)))
      } ms (unsliced ${formatMs(median(m.unsliced.map((s) => s.longestGapMs)))} ms), native parse of the body ${
        formatMs(m.parseMs)
      } ms; answer ${(median(m.sliced.map((s) => s.answerBytes)) / 1e6).toFixed(1)} MB`
    )
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
