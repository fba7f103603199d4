/**
 * Session replay: every recorded run of `../shared/transcripts` (skipped with
 * a note when that folder is absent) and generated sessions that go wrong the
 * ways real ones do (an oversized newest tool result, a model repeating
 * itself for 200,000 characters, a staged approval awaiting `/accept` with a
 * 60 KB and a 500 KB diff, a result lost mid-session, a result given twice),
 * replayed message by message, a checkpoint after every message as an agent
 * loop does, at 8k, 16k, 32k and 128k windows, with the o200k_base tokenizer,
 * the offline summariser and the default settings.
 *
 * The recorded runs are replayed a second time with their call ids drawn from
 * a pool of three (recorded gpt-4o runs reuse ids; they pair by position).
 *
 * Per window: checkpoints, errors (the goal is none), compactions, views over
 * the trigger or failing ViewCheck and checkpoints whose view lacks the newest
 * message's first 500 characters (the goal is none of either), the ladder
 * steps and view repairs taken, and the time per checkpoint, also as a ratio to
 * `JSON.parse` + `JSON.stringify` of the whole transcript measured in the same run.
 *
 * Run: `npx tsx bench/replay.bench.ts` (`--transcripts DIR` reads the recorded
 * runs from another folder; `--windows 8000,32000` replays only those windows).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as Budget from "../src/face/engine/Budget.js"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as ViewCheck from "../src/face/engine/ViewCheck.js"
import * as Testing from "../src/face/layers/Testing.js"
import * as TokenizerBpe from "../src/face/layers/TokenizerBpe.js"
import * as Transcript from "../src/face/models/Transcript.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as Settings from "../src/face/services/Settings.js"
import { fromOpenAI, transcriptsDirectory } from "../test/openai.js"
import { argValue, Prng } from "./generate.js"
import { session } from "./sessions.js"
import { elapsedMs, formatCount, formatMs, median, now, printTable } from "./timing.js"

const windows = (argValue("--windows") ?? "8000,16000,32000,128000").split(",").map(Number).filter((n) => n > 0)
const directory = argValue("--transcripts") ?? transcriptsDirectory

const recorded = (): ReadonlyArray<{ readonly name: string; readonly transcript: Transcript.Transcript }> => {
  let names: Array<string>
  try {
    names = Fs.readdirSync(directory).filter((name) => name.endsWith(".json")).sort()
  } catch {
    names = []
  }
  if (names.length === 0) {
    console.error(`replay: no recorded runs in ${directory}; replaying the generated sessions only`)
  }
  return names.map((name) => ({
    name,
    transcript: fromOpenAI(
      JSON.parse(Fs.readFileSync(NodePath.join(directory, name), "utf8")) as ReadonlyArray<unknown>
    )
  }))
}

const rng = new Prng(0xfeed)
const diffLines = (chars: number): string => {
  const lines: Array<string> = []
  let used = 0
  while (used < chars) {
    const line = `${rng.pick(["+", "-", " "])}  const value${rng.int(0, 999)} = compute(${rng.int(0, 99)}) // ${
      rng.hex(6)
    }`
    lines.push(line)
    used += line.length + 1
  }
  return lines.join("\n").slice(0, chars)
}

const withIds = (messages: ReadonlyArray<Transcript.Message>, prefix: string): Transcript.Transcript =>
  messages.map((message, index) => {
    const id = `${prefix}${index}`
    switch (message._tag) {
      case "System":
        return new Transcript.SystemMessage({ id, content: message.content })
      case "User":
        return new Transcript.UserMessage({ id, content: message.content })
      case "Assistant":
        return new Transcript.AssistantMessage({ id, content: message.content, toolCalls: message.toolCalls })
      case "ToolResult":
        return new Transcript.ToolResult({
          id,
          toolCallId: message.toolCallId,
          content: message.content,
          ...(message.name === undefined ? {} : { name: message.name })
        })
      case "Compacted":
        return message
    }
  })

/** The same messages with their call ids prefixed: two generated sessions end to end share no call id. */
const renameCalls = (messages: ReadonlyArray<Transcript.Message>, prefix: string): Transcript.Transcript =>
  messages.map((message) =>
    message._tag === "Assistant"
      ? new Transcript.AssistantMessage({
        ...message,
        toolCalls: message.toolCalls.map((c) => new Transcript.ToolCall({ ...c, id: prefix + c.id }))
      })
      : message._tag === "ToolResult"
      ? new Transcript.ToolResult({ ...message, toolCallId: prefix + message.toolCallId })
      : message
  )

const call = (id: string, name: string, args: unknown) =>
  new Transcript.ToolCall({ id, name, arguments: JSON.stringify(args) })

const stagedApproval = (diffChars: number): string =>
  JSON.stringify({
    protocol: "agentic-workspace/v1",
    tool: "workspace_edit",
    action: "stage",
    ok: true,
    summary: "Staged tx_0badf00d; approval approval_0badf00d required",
    data: {
      status: "pending_approval",
      mode: "ask",
      transaction: { id: "tx_0badf00d", status: "staged", files: ["src/big.ts"], diff: diffLines(diffChars) },
      approval: {
        id: "approval_0badf00d",
        kind: "transaction",
        title: "Commit edits",
        destructive: false,
        resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: "tx_0badf00d" } }
      }
    },
    retention: { importance: "high", facts: ["tx_0badf00d staged, waiting for approval approval_0badf00d"] }
  })

/** The generated sessions: a realistic session of 60 messages, then what goes wrong. */
const generated = (): ReadonlyArray<{ readonly name: string; readonly transcript: Transcript.Transcript }> => {
  const base = (seed: number) => session(60, undefined, seed)
  const tail = (name: string, messages: ReadonlyArray<Transcript.Message>, seed: number) => ({
    name,
    transcript: withIds([...base(seed), ...messages], "g")
  })
  const lost = [...base(7)]
  const lostAt = lost.findIndex((m, i) => i > 10 && m._tag === "ToolResult")
  lost.splice(lostAt, 1)
  const twice = [...base(8)]
  const twiceAt = twice.findIndex((m, i) => i > 10 && m._tag === "ToolResult")
  twice.splice(twiceAt + 1, 0, twice[twiceAt]!)
  return [
    tail("generated: 868,000-character newest tool result", [
      new Transcript.UserMessage({ id: "", content: "Show me the whole diff of the branch." }),
      new Transcript.AssistantMessage({
        id: "",
        content: "Here it is.",
        toolCalls: [call("big-diff", "bash", { command: "git diff main" })]
      }),
      new Transcript.ToolResult({ id: "", toolCallId: "big-diff", name: "bash", content: diffLines(868_000) })
    ], 1),
    tail("generated: 208,000-character assistant message", [
      new Transcript.UserMessage({ id: "", content: "Summarise what you did." }),
      new Transcript.AssistantMessage({
        id: "",
        content: "I fixed the parser cache and reran the tests. ".repeat(4_522),
        toolCalls: []
      }),
      new Transcript.UserMessage({ id: "", content: "Go on." })
    ], 2),
    ...[60_000, 500_000].map((size, i) =>
      tail(`generated: pending approval with a ${formatCount(size / 1_000)} KB diff`, [
        new Transcript.UserMessage({ id: "", content: "Stage the big refactor." }),
        new Transcript.AssistantMessage({
          id: "",
          content: "Staging it.",
          toolCalls: [call("stage-big", "workspace_edit", { action: "stage", files: ["src/big.ts"] })]
        }),
        new Transcript.ToolResult({
          id: "",
          toolCallId: "stage-big",
          name: "workspace_edit",
          content: stagedApproval(size)
        }),
        new Transcript.AssistantMessage({ id: "", content: "The edit waits for your /accept.", toolCalls: [] }),
        ...renameCalls(base(30 + i).slice(1, 40), "later-")
      ], 3 + i)
    ),
    { name: "generated: a result lost mid-session", transcript: withIds(lost, "g") },
    { name: "generated: a result given twice", transcript: withIds(twice, "g") }
  ]
}

interface Row {
  checkpoints: number
  /** Views that fail ViewCheck with the fit (the goal is none). */
  invalid: number
  /** Checkpoints whose view lacks the newest message's first 500 characters. */
  newestCut: number
  errors: Map<string, number>
  compactions: number
  steps: Map<string, number>
  repairs: number
  times: Array<number>
  baselineMs: number
}

const stepsOf = (checkpoint: Compactor.Checkpoint): ReadonlyArray<{ readonly step: string }> =>
  (checkpoint as { readonly ladder?: ReadonlyArray<{ readonly step: string }> }).ladder ?? []

const repairsOf = (checkpoint: Compactor.Checkpoint): number =>
  ((checkpoint as { readonly repairs?: ReadonlyArray<unknown> }).repairs ?? []).length

/** JSON.parse + JSON.stringify of the transcript's JSON text: the baseline, in ms (median of 5). */
const baselineOf = (transcript: Transcript.Transcript): number => {
  const text = JSON.stringify(transcript)
  const samples: Array<number> = []
  for (let i = 0; i < 5; i++) {
    const start = now()
    JSON.stringify(JSON.parse(text))
    samples.push(elapsedMs(start))
  }
  return median(samples)
}

const replay = async (
  runs: ReadonlyArray<{ readonly name: string; readonly transcript: Transcript.Transcript }>,
  contextWindow: number
): Promise<Row> => {
  const row: Row = {
    checkpoints: 0,
    invalid: 0,
    newestCut: 0,
    errors: new Map(),
    compactions: 0,
    steps: new Map(),
    repairs: 0,
    times: [],
    baselineMs: 0
  }
  const program = Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    for (const { name, transcript } of runs) {
      row.baselineMs += baselineOf(transcript) / runs.length
      for (let end = 1; end <= transcript.length; end++) {
        const prefix = transcript.slice(0, end)
        const start = now()
        const outcome = yield* Effect.either(
          compactor.checkpoint({
            sessionId: `${name}@${contextWindow}`,
            transcript: prefix,
            model: "recorded-model",
            contextWindow
          })
        )
        row.times.push(elapsedMs(start))
        row.checkpoints++
        if (outcome._tag === "Left") {
          row.errors.set(outcome.left.reason, (row.errors.get(outcome.left.reason) ?? 0) + 1)
          continue
        }
        const trigger = outcome.right.trigger
        const fit = {
          trigger,
          replyReserve: Budget.replyReserve(Settings.defaults, trigger),
          tokens: compactor.tokensOf
        }
        if (ViewCheck.check(outcome.right.view, { fit }).length > 0) row.invalid++
        const head = prefix[prefix.length - 1]!.content.slice(0, 500)
        if (!outcome.right.view.some((message) => message.content.includes(head))) row.newestCut++
        if (Option.isSome(outcome.right.compacted)) row.compactions++
        for (const { step } of stepsOf(outcome.right)) row.steps.set(step, (row.steps.get(step) ?? 0) + 1)
        row.repairs += repairsOf(outcome.right)
      }
    }
  })
  const services = Testing.layer({ tokenizer: TokenizerBpe.layer })
  // Never pausing: the bench times the work itself (the vocabulary loads when the layer is built: a promise).
  await Effect.runPromise(
    program.pipe(
      Effect.provide(
        Compactor.layer({ policies: builtInPolicies, sliceMs: Number.POSITIVE_INFINITY }).pipe(Layer.provide(services))
      )
    )
  )
  return row
}

const counts = (map: Map<string, number>): string =>
  map.size === 0 ? "none" : [...map].map(([key, n]) => `${key} ${formatCount(n)}`).join(", ")

/** The same runs with their call ids drawn from a pool of three, as recorded gpt-4o runs reuse ids: paired by position. */
const reusingIds = (runs: ReadonlyArray<{ readonly name: string; readonly transcript: Transcript.Transcript }>) =>
  runs.map(({ name, transcript }) => {
    let next = 0
    let current = new Map<string, string>()
    return {
      name: `${name} (ids reused)`,
      transcript: transcript.map((message) => {
        if (message._tag === "Assistant" && message.toolCalls.length > 0) {
          current = new Map(message.toolCalls.map((c) => [c.id, `call_${next++ % 3}`]))
          return new Transcript.AssistantMessage({
            ...message,
            toolCalls: message.toolCalls.map((c) => new Transcript.ToolCall({ ...c, id: current.get(c.id)! }))
          })
        }
        return message._tag === "ToolResult" && current.has(message.toolCallId)
          ? new Transcript.ToolResult({ ...message, toolCallId: current.get(message.toolCallId)! })
          : message
      })
    }
  })

const sets = [
  { name: "recorded runs", runs: recorded() },
  { name: "recorded runs, call ids reused from a pool of three", runs: reusingIds(recorded()) },
  { name: "generated sessions", runs: generated() }
]
for (const { name, runs } of sets) {
  if (runs.length === 0) continue
  console.log(
    `\n${name}: ${runs.length} sessions, ${
      formatCount(runs.reduce((n, r) => n + r.transcript.length, 0))
    } messages, a checkpoint after each`
  )
  const rows: Array<Array<string>> = []
  for (const contextWindow of windows) {
    const row = await replay(runs, contextWindow)
    const mean = row.times.reduce((a, b) => a + b, 0) / Math.max(row.times.length, 1)
    rows.push([
      formatCount(contextWindow),
      formatCount(row.checkpoints),
      formatCount([...row.errors.values()].reduce((a, b) => a + b, 0)),
      formatCount(row.compactions),
      formatCount(row.invalid),
      formatCount(row.newestCut),
      formatMs(median(row.times)),
      formatMs(mean),
      `${(mean / row.baselineMs).toFixed(2)}×`,
      counts(row.errors),
      counts(row.steps),
      formatCount(row.repairs)
    ])
  }
  printTable([
    "window",
    "checkpoints",
    "errors",
    "compactions",
    "over or invalid",
    "newest head cut",
    "median ms",
    "mean ms",
    "mean / JSON",
    "errors by reason",
    "ladder steps",
    "repairs"
  ], rows)
}
console.log(
  "\nmean / JSON: mean time per checkpoint against JSON.parse + JSON.stringify of the whole transcript (mean over the sessions), same run"
)
