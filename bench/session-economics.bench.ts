/**
 * Session economics (issue 23): what compaction costs over a whole session,
 * not per compaction. The recorded runs of `../shared/transcripts` (skipped
 * with a note when that folder is absent) and the example session
 * `examples/session/agent-session.json` are replayed as sessions: a checkpoint
 * before every assistant message (the transcript prefix that ends just before
 * it, one model call), one session id per run and window, at windows from 4k
 * to 1M, with the chars/4 tokenizer, the offline summariser and the
 * default settings, through the public engine API only (`Compactor.checkpoint`).
 *
 * Three baselines written here are replayed the same way:
 * - the peer model (issue 31; `peerCall`): it compacts past min(80 % of the
 *   window, 250,000), keeps 25 % of the trigger verbatim from a turn start, and
 *   writes a ~1,500-token summary, a capped deduplicated state of recent files
 *   and commands and the user's messages (capped); a later compaction folds the
 *   block in;
 * - observation masking: the newest 10 tool results verbatim, older ones
 *   replaced by `[tool result omitted]`; no summariser;
 * - summary plus tail: at the engine's trigger rule (80 % of the window, a
 *   4,096-token reply reserve capped at a quarter of the trigger) the view
 *   becomes a ~1,500-token summary (the offline summariser's text of the
 *   span, clipped to 6,000 characters), a mechanical state (files written,
 *   last commands; at most 500 tokens) and the newest whole turns fitting 25 %
 *   of the trigger; that form persists and grows until the next compaction.
 *
 * Per window and strategy: model calls, compactions, summariser input tokens,
 * tokens sent, uncached tokens (prompt-cache model: a cached token is one in
 * the longest run of whole leading messages equal, same role and text, to the
 * previous call's request), cost units (0.1 a cached token, 1.25 an uncached
 * one, and per compaction its summariser input at 1.0 plus 2,000 output
 * tokens at 5.0), cache breaks (calls without a compaction that change a
 * message already sent), views over the window, and the survival of facts at
 * sampled calls (first message, files written, the last 3 test commands, the
 * newest error line, working ids; a fact survives when its text, or its
 * JSON-escaped form, is in the view's text, runs of whitespace and
 * line-leading quote marks ignored); the ratios to summary plus tail, a
 * verdict against the issue's "must hold", and the engine's view after each
 * compaction as a share of the trigger.
 *
 * The engine's summariser input is measured: chars/4 of every request it
 * sends the summariser as it would be sent (`Summarizer.messagesOf`: system +
 * prompt, 4 tokens a message), counted by a wrapper around the offline
 * summariser. Each window replays the engine a second time with
 * `summary_request = "shared-prefix"` and compares the two shapes: the
 * quality gate's pass rate (`Compacted.gate`), the summariser's input tokens
 * and, of them, those cacheable (the longest run of whole leading messages
 * equal to the engine's previous request to the provider), and the input cost
 * (1.0 an uncached token, 0.1 a cached one), as ratios to delimited. With the
 * offline summariser both shapes give the same summary (it reads the span):
 * the pass rate of a model needs a model. Summary plus tail's is the tokens of its span. The
 * offline summariser leaves the first message out of its text (the engine
 * pins it in the block), so summary plus tail keeps it only while it is in
 * the tail.
 *
 * The levers of issue 31 are each replayed turned off (`levers`): a row per
 * lever shows the engine before it.
 *
 * Model mode: with `--summarizer-url URL` (or
 * `CONTEXT_COMPRESSOR_BENCH_SUMMARIZER_URL`) the engine summarises through the
 * chat-completions summariser at that OpenAI-compatible server, delimited and
 * then shared-prefix on the same calls, and the bench reports the gate's pass
 * rate, the summaries' lengths, the input tokens and the facts (docs/compaction.md).
 *
 * Run: `npx tsx bench/session-economics.bench.ts` (`--windows 8000,32000`
 * replays only those windows; `--every N` samples the facts at every Nth call,
 * default 1; `--transcripts DIR` reads the recorded runs from another folder;
 * `--no-example`, `--calls N`, `--no-shared-prefix`, `--no-levers`).
 * Progress on stderr, results on stdout.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as SummarizerChatCompletions from "../layers/SummarizerChatCompletions.js"
import * as SummarizerOffline from "../layers/SummarizerOffline.js"
import * as Testing from "../layers/Testing.js"
import * as TokenizerApprox from "../layers/TokenizerApprox.js"
import { builtInPolicies } from "../rules/index.js"
import * as Summarizer from "../services/Summarizer.js"
import * as Compactor from "../src/Compactor.js"
import * as Transcript from "../src/Transcript.js"
import * as WorkingState from "../src/WorkingState.js"
import { fromOpenAI, transcriptsDirectory } from "../test/openai.js"
import { argValue } from "./generate.js"
import { elapsedMs, formatCount, median, now, printTable } from "./timing.js"

const windows = (argValue("--windows") ??
  (argValue("--summarizer-url") ?? process.env["CONTEXT_COMPRESSOR_BENCH_SUMMARIZER_URL"]
    ? "8000"
    : "4000,8000,16000,32000,64000,128000,256000,1000000")).split(",").map(Number).filter((n) =>
    Number.isFinite(n) && n > 0)
const sharedPrefix = !process.argv.includes("--no-shared-prefix")
const withLevers = !process.argv.includes("--no-levers")
/** A local OpenAI-compatible server to summarise with (the model mode), by flag or environment variable. */
const summarizerUrl = argValue("--summarizer-url") ?? process.env["CONTEXT_COMPRESSOR_BENCH_SUMMARIZER_URL"]
const summarizerModel = argValue("--summarizer-model") ?? process.env["CONTEXT_COMPRESSOR_BENCH_SUMMARIZER_MODEL"]
const summarizerKey = process.env["CONTEXT_COMPRESSOR_BENCH_SUMMARIZER_KEY"]
const summarizerTimeoutMs = Number(argValue("--summarizer-timeout-ms") ?? "180000")
/** At most this many calls of each session are replayed (all by default): bounds a model run. */
const callLimit = Math.floor(Number(argValue("--calls") ?? "Infinity"))
const withExample = !process.argv.includes("--no-example")
const every = Math.max(1, Math.floor(Number(argValue("--every") ?? "1")) || 1)
const directory = argValue("--transcripts") ?? transcriptsDirectory
const exampleFile = fileURLToPath(new URL("../examples/session/agent-session.json", import.meta.url))

// ---------------------------------------------------------------------------
// The sessions

interface Run {
  readonly name: string
  readonly transcript: Transcript.Transcript
  /** The length of each call's prefix: the messages before an assistant message. */
  readonly calls: ReadonlyArray<number>
}

const readRun = (name: string, file: string): Run | undefined => {
  try {
    const transcript = fromOpenAI(JSON.parse(Fs.readFileSync(file, "utf8")) as ReadonlyArray<unknown>)
    const calls = transcript.flatMap((message, index) => (message._tag === "Assistant" && index > 0 ? [index] : []))
    return { name, transcript, calls }
  } catch (error) {
    console.error(
      `session economics: ${file} not read (${error instanceof Error ? error.message : String(error)}); left out`
    )
    return undefined
  }
}

const loadRuns = (): ReadonlyArray<Run> => {
  let names: Array<string> = []
  try {
    names = Fs.readdirSync(directory).filter((name) => name.endsWith(".json")).sort()
  } catch {
    names = []
  }
  if (names.length === 0) {
    console.error(
      `session economics: no recorded runs in ${directory}${withExample ? "; replaying the example session only" : ""}`
    )
  }
  const runs = names.map((name) => readRun(name, NodePath.join(directory, name)))
  return [...runs, withExample ? readRun("example agent-session.json", exampleFile) : undefined]
    .filter((run): run is Run => run !== undefined)
    .map((run) => (run.calls.length > callLimit ? { ...run, calls: run.calls.slice(0, Math.max(callLimit, 0)) } : run))
}

// ---------------------------------------------------------------------------
// Facts: computed from the transcript prefix alone, once per call

/** A fact: the texts it may appear as (as typed, and as escaped inside JSON arguments); present when one of them is in the view. */
type Fact = ReadonlyArray<string>

interface Facts {
  readonly firstMessage: ReadonlyArray<Fact>
  readonly filesWritten: ReadonlyArray<Fact>
  readonly testCommands: ReadonlyArray<Fact>
  readonly errorLine: ReadonlyArray<Fact>
  readonly workingIds: ReadonlyArray<string>
}

const factKinds = ["firstMessage", "filesWritten", "testCommands", "errorLine", "workingIds"] as const
type FactKind = typeof factKinds[number]

/** Runs of whitespace as one space, line-leading quote marks dropped: a fact quoted or wrapped on other lines still counts. */
const squash = (text: string): string => text.replace(/^[ \t]*>[ \t]?/gm, "").replace(/\s+/g, " ").trim()

/** A text as typed and as escaped inside a JSON string (tool-call arguments are JSON). */
const forms = (text: string): Fact => {
  const escaped = squash(JSON.stringify(text).slice(1, -1))
  return escaped === text ? [text] : [text, escaped]
}

const testCommand =
  /(?<![\w.\/-])(?:py\.?test|python3? -m (?:pytest|unittest)|npm (?:run )?test|npx (?:vitest|jest)|vitest|jest|go test|cargo test|runtests\.py|tox\b|make test)/
const errorLine = /Error|Traceback|FAILED|error:/

/** The text of a call's arguments a person would type: the `command` field of a JSON object, else the arguments. */
const commandOf = (call: Transcript.ToolCall): string => {
  try {
    const parsed = JSON.parse(call.arguments) as unknown
    if (typeof parsed === "object" && parsed !== null) {
      const command = (parsed as Record<string, unknown>)["command"] ?? (parsed as Record<string, unknown>)["cmd"]
      if (typeof command === "string") return command
      if (Array.isArray(command)) return command.map(String).join(" ")
      const executable = (parsed as Record<string, unknown>)["executable"]
      const args = (parsed as Record<string, unknown>)["args"]
      if (typeof executable === "string") {
        return [executable, ...(Array.isArray(args) ? args.map(String) : [])].join(" ")
      }
    }
  } catch {
    // not JSON: the raw arguments
  }
  return call.arguments
}

/** The lines of a tool result: of its string values when it is JSON, so that an envelope's error message is a line of its own. */
const linesOf = (content: string): ReadonlyArray<string> => {
  const trimmed = content.trimStart()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const strings: Array<string> = []
      const walk = (value: unknown): void => {
        if (typeof value === "string") strings.push(value)
        else if (Array.isArray(value)) value.forEach(walk)
        else if (typeof value === "object" && value !== null) Object.values(value).forEach(walk)
      }
      walk(JSON.parse(content))
      return strings.flatMap((text) => text.split("\n"))
    } catch {
      // not JSON: its lines
    }
  }
  return content.split("\n")
}

/** An id-like token: ≥ 6 characters of letters, digits, `_` and `-`, with a digit and a letter, not part of a path or a file name. */
const idCandidates = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const match of text.matchAll(/[A-Za-z0-9_-]{6,}/g)) {
    const token = match[0].replace(/^[-_]+|[-_]+$/g, "")
    if (token.length < 6 || !/\d/.test(token) || !/[A-Za-z]/.test(token)) continue
    const at = match.index ?? 0
    const before = text[at - 1]
    const after = text.slice(at + match[0].length, at + match[0].length + 2)
    if (before === "/" || before === "." || after.startsWith("/") || /^\.\w/.test(after)) continue
    out.push(token)
  }
  return out
}

/** The newest `count` distinct entries, newest first. */
const lastDistinct = (entries: ReadonlyArray<Fact>, count: number): ReadonlyArray<Fact> => {
  const out: Array<Fact> = []
  for (let i = entries.length - 1; i >= 0 && out.length < count; i--) {
    if (!out.some((fact) => fact[0] === entries[i]![0])) out.push(entries[i]!)
  }
  return out
}

/**
 * The facts of every call of a run, computed incrementally over its prefixes
 * (the files written through `WorkingState.extract` of the prefix).
 */
const factsOfRun = (run: Run): ReadonlyArray<Facts> => {
  const transcript = run.transcript
  const firstUser = transcript.find((message) => message._tag === "User")
  const first = firstUser === undefined || squash(firstUser.content) === ""
    ? []
    : [forms(squash(firstUser.content.slice(0, 200)))]
  const source = new Map<string, "tool" | "other">()
  const working = new Set<string>()
  const tests: Array<Fact> = []
  let newestError: Fact | undefined
  let scanned = 0
  const facts: Array<Facts> = []
  for (const end of run.calls) {
    for (; scanned < end; scanned++) {
      const message = transcript[scanned]!
      if (message._tag === "ToolResult") {
        for (const id of idCandidates(message.content)) if (!source.has(id)) source.set(id, "tool")
        const lines = linesOf(message.content).map(squash).filter((line) => line !== "" && errorLine.test(line))
        if (lines.length > 0) newestError = forms(lines.at(-1)!.slice(0, 200))
      } else {
        for (const id of idCandidates(message.content)) if (!source.has(id)) source.set(id, "other")
      }
      if (message._tag === "Assistant") {
        for (const call of message.toolCalls) {
          for (const id of idCandidates(call.arguments)) {
            if (source.get(id) === "tool") working.add(id)
            else if (!source.has(id)) source.set(id, "other")
          }
          const command = commandOf(call)
          const line = command.split("\n").find((l) => testCommand.test(l))
          // A command given as JSON fields (`executable`, `args`) may also appear as its arguments as sent.
          if (line !== undefined) {
            tests.push([
              ...forms(squash(line).slice(0, 200)),
              ...(command === call.arguments || line !== command ? [] : [squash(call.arguments)])
            ])
          }
        }
      }
    }
    const prefix = transcript.slice(0, end)
    facts.push({
      firstMessage: first,
      filesWritten: WorkingState.extract(prefix).filesWritten.map(forms),
      testCommands: lastDistinct(tests, 3),
      errorLine: newestError === undefined ? [] : [newestError],
      workingIds: [...working]
    })
  }
  return facts
}

// ---------------------------------------------------------------------------
// A strategy's tally over the calls of one window

interface Tally {
  calls: number
  compactions: number
  summarizerInput: number
  sent: number
  uncached: number
  cached: number
  overWindow: number
  /** Calls without a compaction whose request changed a message already sent (the cached prefix broke). */
  breaks: number
  errors: number
  readonly present: Record<FactKind, number>
  readonly expected: Record<FactKind, number>
  /** Views after a compaction, as a share of the trigger. */
  readonly afterShares: Array<number>
}

const newTally = (): Tally => ({
  calls: 0,
  compactions: 0,
  summarizerInput: 0,
  sent: 0,
  uncached: 0,
  cached: 0,
  overWindow: 0,
  breaks: 0,
  errors: 0,
  present: { firstMessage: 0, filesWritten: 0, testCommands: 0, errorLine: 0, workingIds: 0 },
  expected: { firstMessage: 0, filesWritten: 0, testCommands: 0, errorLine: 0, workingIds: 0 },
  afterShares: []
})

/** Cost units: 0.1 a cached token, 1.25 an uncached one, per compaction its summariser input at 1.0 and 2,000 output tokens at 5.0. */
const costOf = (t: Tally): number =>
  0.1 * t.cached + 1.25 * t.uncached + 1.0 * t.summarizerInput + 5.0 * 2_000 * t.compactions

const keyOf = (message: Transcript.Message): string => `${message._tag}\u0000${Transcript.text(message)}`

/** Records one request: tokens sent, the prompt-cache split against the previous request, the window, and the facts when sampled. */
const record = (
  tally: Tally,
  view: Transcript.Transcript,
  previous: ReadonlyArray<string>,
  tokensOf: (message: Transcript.Message) => number,
  contextWindow: number,
  facts: Facts | undefined,
  compacted: boolean
): ReadonlyArray<string> => {
  const keys = view.map(keyOf)
  const tokens = view.map(tokensOf)
  let leading = 0
  while (leading < keys.length && leading < previous.length && keys[leading] === previous[leading]) leading++
  const total = tokens.reduce((a, b) => a + b, 0)
  const cached = tokens.slice(0, leading).reduce((a, b) => a + b, 0)
  tally.calls++
  tally.sent += total
  tally.cached += cached
  tally.uncached += total - cached
  if (total > contextWindow) tally.overWindow++
  if (!compacted && leading < previous.length) tally.breaks++
  if (facts !== undefined) {
    const text = squash(view.map(Transcript.text).join("\n"))
    const tokensInView = new Set(idCandidates(view.map(Transcript.text).join("\n")))
    for (const kind of factKinds) {
      for (const fact of facts[kind]) {
        tally.expected[kind]++
        const present = typeof fact === "string"
          ? tokensInView.has(fact) || text.includes(fact)
          : fact.some((form) => text.includes(form))
        if (present) tally.present[kind]++
      }
    }
  }
  return keys
}

// ---------------------------------------------------------------------------
// The baselines

/** The trigger rule of the engine's defaults, fixed here so that the baselines do not move with the engine. */
const triggerOf = (contextWindow: number): number => Math.floor(Math.min(0.8 * contextWindow, 250_000))
const reserveOf = (trigger: number): number => Math.min(4_096, Math.floor(trigger / 4))
const needsCompaction = (tokens: number, trigger: number): boolean => tokens + reserveOf(trigger) > trigger

const placeholder = "[tool result omitted]"

/** Observation masking: the newest 10 tool results verbatim, the older ones a placeholder. */
const masked = (prefix: Transcript.Transcript): Transcript.Transcript => {
  let keep = 10
  const out: Array<Transcript.Message> = []
  for (let i = prefix.length - 1; i >= 0; i--) {
    const message = prefix[i]!
    if (message._tag === "ToolResult" && keep-- <= 0) {
      out.push(new Transcript.ToolResult({ ...message, content: placeholder }))
    } else {
      out.push(message)
    }
  }
  return out.reverse()
}

/** Head and tail of a text within `max` characters, a marker between. */
const headTail = (text: string, max: number): string => {
  if (text.length <= max) return text
  const marker = `\n[… ${text.length - max} characters omitted …]\n`
  const room = Math.max(max - marker.length, 0)
  return text.slice(0, Math.ceil(room / 2)) + marker + text.slice(text.length - Math.floor(room / 2))
}

interface SummaryTailState {
  /** The compacted form: system messages, summary, state, tail; grows with new messages until the next compaction. */
  form: Array<Transcript.Message>
  /** How much of the transcript the form covers. */
  covered: number
  files: Array<string>
  commands: Array<string>
  compactions: number
}

const summaryChars = 6_000
const summaryId = "baseline-summary-"
const stateId = "baseline-state-"
const stateTokens = 500

/** Whether a message opens a turn (a user or assistant message), the blocks a baseline wrote excepted. */
const opensTurn = (message: Transcript.Message): boolean =>
  (message._tag === "User" || message._tag === "Assistant") && !blockIds.some((prefix) => message.id.startsWith(prefix))

/**
 * The split of a baseline's form (its system messages left out) at a turn start: the newest whole turns
 * fitting `tailBudget` stay verbatim; when not even the newest turn fits, it stays, its messages clipped head
 * and tail to share the budget.
 */
const splitTail = (
  rest: ReadonlyArray<Transcript.Message>,
  tailBudget: number,
  tokensOf: (message: Transcript.Message) => number
): { readonly span: ReadonlyArray<Transcript.Message>; readonly tail: ReadonlyArray<Transcript.Message> } => {
  let start = rest.length
  let used = 0
  for (let i = rest.length - 1; i >= 0; i--) {
    used += tokensOf(rest[i]!)
    if (used > tailBudget) break
    if (opensTurn(rest[i]!)) start = i
  }
  if (start < rest.length) return { span: rest.slice(0, start), tail: rest.slice(start) }
  let turn = rest.length - 1
  while (turn > 0 && !opensTurn(rest[turn]!)) turn--
  const newest = rest.slice(turn)
  const chars = Math.floor((tailBudget * 4) / newest.length) - 16
  const tail = newest.map((message) =>
    message._tag === "Assistant"
      ? new Transcript.AssistantMessage({ ...message, content: headTail(message.content, chars) })
      : message._tag === "ToolResult"
      ? new Transcript.ToolResult({ ...message, content: headTail(message.content, chars) })
      : message._tag === "User"
      ? new Transcript.UserMessage({ ...message, content: headTail(message.content, chars) })
      : message
  )
  return { span: rest.slice(0, turn), tail }
}

/** Summary plus tail: one call; compacts when the view passes the trigger. */
const summaryTailCall = (
  state: SummaryTailState,
  prefix: Transcript.Transcript,
  tokensOf: (message: Transcript.Message) => number,
  contextWindow: number,
  tally: Tally
): Transcript.Transcript => {
  state.form.push(...prefix.slice(state.covered))
  state.covered = prefix.length
  const trigger = triggerOf(contextWindow)
  const sum = (messages: ReadonlyArray<Transcript.Message>) => messages.reduce((n, m) => n + tokensOf(m), 0)
  if (!needsCompaction(sum(state.form), trigger)) return state.form
  const system = state.form.filter((message) => message._tag === "System")
  const rest = state.form.filter((message) => message._tag !== "System")
  // The newest whole turns (a turn opens at a user or assistant message, not at the summary or state) fitting 25 % of the trigger.
  const { span, tail } = splitTail(rest, Math.floor(trigger / 4), tokensOf)
  if (span.length === 0) return state.form
  const extracted = WorkingState.extract(span)
  state.files = [...new Set([...state.files, ...extracted.filesWritten])]
  state.commands = [...state.commands, ...extracted.commands.map((c) => squash(c.command).slice(0, 200))].slice(-5)
  const summary = headTail(SummarizerOffline.summarize(span), summaryChars)
  const mechanical = headTail(
    [`Files written: ${state.files.join(", ") || "none"}`, ...state.commands.map((c) => `Ran: ${c}`)].join("\n"),
    stateTokens * 4
  )
  state.compactions++
  tally.compactions++
  tally.summarizerInput += sum(span)
  state.form = [
    ...system,
    new Transcript.UserMessage({
      id: `${summaryId}${state.compactions}`,
      content: `[Summary of the earlier conversation]\n${summary}`
    }),
    new Transcript.UserMessage({ id: `${stateId}${state.compactions}`, content: `[State]\n${mechanical}` }),
    ...tail
  ]
  tally.afterShares.push(sum(state.form) / trigger)
  return state.form
}

// ---------------------------------------------------------------------------
// The peer model

/**
 * The peer system as issue 31 describes it, so that the engine is measured against what a user would
 * otherwise run:
 * - it compacts when the view passes its trigger, min(80 % of the window, 250,000) (no reply reserve
 *   inside the trigger: the window's other 20 % is the reply's);
 * - it keeps a verbatim tail of 25 % of the trigger, cut at a turn start;
 * - its block is a summary of about 1,500 tokens (the offline summariser's text of the span, clipped
 *   head and tail to 6,000 characters; a model's is 3,000 tokens at most), then a short mechanical
 *   state (the newest {@link peerFileLimit} files the calls named or wrote and the newest
 *   {@link peerCommandLimit} commands, each list deduplicated, at most {@link peerStateTokens} tokens),
 *   then the user's messages, newest first within min(2,000, a tenth of the trigger) tokens (the oldest
 *   one kept clipped to its head when it does not fit whole);
 * - a later compaction folds the earlier block in: the block is part of the span it summarises, and the
 *   state's lists and the user's messages carry over.
 */
interface PeerState {
  form: Array<Transcript.Message>
  covered: number
  files: Array<string>
  commands: Array<string>
  users: Array<string>
  compactions: number
}

const peerSummaryChars = 6_000
const peerStateTokens = 400
const peerFileLimit = 10
const peerCommandLimit = 5
const peerSummaryId = "peer-summary-"
const blockIds = [summaryId, stateId, peerSummaryId]

/** The newest `limit` distinct entries, oldest first. */
const newestDistinct = (entries: ReadonlyArray<string>, limit: number): Array<string> => {
  const out: Array<string> = []
  for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
    if (!out.includes(entries[i]!)) out.push(entries[i]!)
  }
  return out.reverse()
}

/** The peer's user-message cap: min(2,000 tokens, a tenth of the trigger). */
const peerUserTokens = (trigger: number): number => Math.min(2_000, Math.floor(trigger / 10))

/** The peer model: one call; compacts when the view passes the trigger. */
const peerCall = (
  state: PeerState,
  prefix: Transcript.Transcript,
  tokensOf: (message: Transcript.Message) => number,
  contextWindow: number,
  tally: Tally
): Transcript.Transcript => {
  state.form.push(...prefix.slice(state.covered))
  state.covered = prefix.length
  const trigger = triggerOf(contextWindow)
  const sum = (messages: ReadonlyArray<Transcript.Message>) => messages.reduce((n, m) => n + tokensOf(m), 0)
  if (sum(state.form) <= trigger) return state.form
  const system = state.form.filter((message) => message._tag === "System")
  const rest = state.form.filter((message) => message._tag !== "System")
  const { span, tail } = splitTail(rest, Math.floor(trigger / 4), tokensOf)
  if (span.length === 0) return state.form
  const extracted = WorkingState.extract(span)
  state.files = newestDistinct([...state.files, ...extracted.filePaths, ...extracted.filesWritten], peerFileLimit)
  state.commands = newestDistinct([
    ...state.commands,
    ...extracted.commands.map((c) => squash(c.command).slice(0, 200))
  ], peerCommandLimit)
  state.users = [...state.users, ...span.flatMap((m) => (m._tag === "User" && opensTurn(m) ? [m.content] : []))]
  // The user's messages, newest first within the cap; the oldest that does not fit whole keeps its head.
  let room = peerUserTokens(trigger) * 4
  const users: Array<string> = []
  for (let i = state.users.length - 1; i >= 0 && room > 0; i--) {
    const text = state.users[i]!
    users.unshift(text.length <= room ? text : `${text.slice(0, room)} […]`)
    room -= text.length
  }
  const summary = headTail(SummarizerOffline.summarize(span), peerSummaryChars)
  const mechanical = headTail(
    [`Recent files: ${state.files.join(", ") || "none"}`, ...state.commands.map((c) => `Ran: ${c}`)].join("\n"),
    peerStateTokens * 4
  )
  state.compactions++
  tally.compactions++
  tally.summarizerInput += sum(span)
  state.form = [
    ...system,
    new Transcript.UserMessage({
      id: `${peerSummaryId}${state.compactions}`,
      content:
        `[Summary of the earlier conversation]\n${summary}\n\n[Working state]\n${mechanical}\n\n[Your messages]\n${
          users.join("\n\n")
        }`
    }),
    ...tail
  ]
  tally.afterShares.push(sum(state.form) / trigger)
  return state.form
}

// ---------------------------------------------------------------------------
// The engine

/** What the counting summariser saw: input tokens, of them those cacheable, calls, and the engine's previous request (to match against). */
interface Counter {
  tokens: number
  cacheable: number
  calls: number
  shared: number
  /** The message keys of the request the engine gave back last for the session being replayed. */
  previous: ReadonlyArray<string>
  /** The chars/4 tokens of every summary the summariser gave back, in order. */
  readonly summaryTokens: Array<number>
  /** The summariser's failures by reason. */
  readonly failures: Map<string, number>
}

/**
 * The offline summariser, adding to `counter` the chars/4 tokens of every request the engine makes as it would
 * be sent (`Summarizer.messagesOf`: system + prompt, or the shared prefix + prompt, 4 tokens a message), and of
 * them those in the longest run of whole leading messages equal to the engine's previous request to the
 * provider (the prompt-cache model of the table; a delimited request has none).
 */
const countingSummarizer = (counter: Counter, inner: Layer.Layer<Summarizer.Summarizer>) =>
  Layer.effect(
    Summarizer.Summarizer,
    Effect.map(Summarizer.Summarizer, (service): Summarizer.Service => {
      const count = (request: Summarizer.SummaryRequest): void => {
        const messages = Summarizer.messagesOf(request)
        const tokens = messages.map((message) => TokenizerApprox.count(Transcript.text(message)) + 4)
        let leading = 0
        while (
          leading < messages.length - 1 && leading < counter.previous.length &&
          keyOf(messages[leading]!) === counter.previous[leading]
        ) leading++
        counter.calls++
        if (request.prefix !== undefined) counter.shared++
        counter.tokens += tokens.reduce((a, b) => a + b, 0)
        counter.cacheable += tokens.slice(0, leading).reduce((a, b) => a + b, 0)
      }
      const answered = (text: string): void => {
        counter.summaryTokens.push(TokenizerApprox.count(text))
      }
      const failed = (error: Summarizer.SummarizerError): void => {
        if (!counter.failures.has(error.reason)) {
          console.error(`session economics: the summariser failed (${error.reason}): ${error.message}`)
        }
        counter.failures.set(error.reason, (counter.failures.get(error.reason) ?? 0) + 1)
      }
      const summarizeWithUsage = service.summarizeWithUsage
      return {
        summarize: (request) =>
          Effect.suspend(() => {
            count(request)
            return service.summarize(request).pipe(
              Effect.tap(answered),
              Effect.tapError((error) => Effect.sync(() => failed(error)))
            )
          }),
        ...(summarizeWithUsage === undefined ? {} : {
          summarizeWithUsage: (request: Summarizer.SummaryRequest) =>
            Effect.suspend(() => {
              count(request)
              return summarizeWithUsage(request).pipe(
                Effect.tap((reply) => answered(reply.text)),
                Effect.tapError((error) => Effect.sync(() => failed(error)))
              )
            })
        })
      }
    })
  ).pipe(Layer.provide(inner))

interface WindowResult {
  readonly engine: Tally
  readonly masking: Tally
  readonly summaryTail: Tally
  readonly peer: Tally
  /** The engine's summariser requests: input tokens, of them cacheable, calls, shared-prefix ones, and the gate's verdicts. */
  readonly requests: {
    readonly tokens: number
    readonly cacheable: number
    readonly calls: number
    readonly shared: number
    readonly passed: number
    readonly verdicts: number
    readonly summaryTokens: ReadonlyArray<number>
    readonly failures: ReadonlyMap<string, number>
    /** Compactions that fell back to a trim (no summary the gate passed). */
    readonly trimmed: number
  }
  readonly ms: number
}

type SummaryRequestShape = "delimited" | "shared-prefix"

/** How the engine is replayed: its summariser request, its layer options (a lever turned off), and whether the baselines are replayed beside it. */
interface Variant {
  readonly summaryRequest: SummaryRequestShape
  readonly options?: Partial<Compactor.Options>
  readonly baselines: boolean
  /** The summariser (default: the offline one). */
  readonly summarizer?: Layer.Layer<Summarizer.Summarizer>
}

/**
 * The levers of issue 31, each turned off in a replay of its own, so that the table shows what it moved:
 * the engine as it was before the lever, beside the engine with every lever.
 */
const levers: ReadonlyArray<{ readonly name: string; readonly options: Partial<Compactor.Options> }> = [
  { name: "reply reserve under the trigger (before lever 1)", options: { levers: { replyReserveIn: "trigger" } } },
  { name: "block layout summary (before levers 2-4)", options: { levers: { blockLayout: "summary" } } },
  { name: "both (before levers 1-4)", options: { levers: { replyReserveIn: "trigger", blockLayout: "summary" } } }
]

const replayWindow = async (
  runs: ReadonlyArray<Run>,
  factsByRun: ReadonlyArray<ReadonlyArray<Facts>>,
  contextWindow: number,
  variant: Variant
): Promise<WindowResult> => {
  const started = now()
  const engine = newTally()
  const masking = newTally()
  const summaryTail = newTally()
  const peer = newTally()
  const counter: Counter = {
    tokens: 0,
    cacheable: 0,
    calls: 0,
    shared: 0,
    previous: [],
    summaryTokens: [],
    failures: new Map()
  }
  let passed = 0
  let trimmed = 0
  let verdicts = 0
  const program = Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const tokensOf = compactor.tokensOf
    for (const [r, run] of runs.entries()) {
      console.error(
        `session economics: window ${formatCount(contextWindow)}, run ${
          r + 1
        }/${runs.length} ${run.name} (${run.calls.length} calls)`
      )
      let sentEngine: ReadonlyArray<string> = []
      let sentMasking: ReadonlyArray<string> = []
      let sentSummary: ReadonlyArray<string> = []
      let sentPeer: ReadonlyArray<string> = []
      const peerState: PeerState = { form: [], covered: 0, files: [], commands: [], users: [], compactions: 0 }
      const state: SummaryTailState = { form: [], covered: 0, files: [], commands: [], compactions: 0 }
      for (const [c, end] of run.calls.entries()) {
        const prefix = run.transcript.slice(0, end)
        const facts = c % every === 0 || c === run.calls.length - 1 ? factsByRun[r]![c] : undefined
        counter.previous = sentEngine
        const outcome = yield* Effect.either(
          compactor.checkpoint({
            sessionId: `${run.name}@${contextWindow}`,
            transcript: prefix,
            model: "recorded-model",
            contextWindow
          })
        )
        if (outcome._tag === "Left") {
          engine.errors++
        } else {
          const checkpoint = outcome.right
          sentEngine = record(
            engine,
            checkpoint.view,
            sentEngine,
            tokensOf,
            contextWindow,
            facts,
            Option.isSome(checkpoint.compacted)
          )
          if (Option.isSome(checkpoint.compacted)) {
            if (checkpoint.compacted.value.fallback !== "none") trimmed++
            passed += checkpoint.compacted.value.gate.filter((verdict) => verdict === "passed").length
            verdicts += checkpoint.compacted.value.gate.length
            engine.compactions++
            engine.afterShares.push(checkpoint.view.reduce((n, m) => n + tokensOf(m), 0) / checkpoint.trigger)
          }
        }
        if (!variant.baselines) continue
        sentMasking = record(masking, masked(prefix), sentMasking, tokensOf, contextWindow, facts, false)
        const before = summaryTail.compactions
        const view = summaryTailCall(state, prefix, tokensOf, contextWindow, summaryTail)
        sentSummary = record(
          summaryTail,
          view,
          sentSummary,
          tokensOf,
          contextWindow,
          facts,
          summaryTail.compactions > before
        )
        const peerBefore = peer.compactions
        const peerView = peerCall(peerState, prefix, tokensOf, contextWindow, peer)
        sentPeer = record(peer, peerView, sentPeer, tokensOf, contextWindow, facts, peer.compactions > peerBefore)
      }
    }
  })
  const services = Testing.layer({
    tokenizer: TokenizerApprox.layer,
    summarizer: countingSummarizer(counter, variant.summarizer ?? SummarizerOffline.layer),
    settings: { summaryRequest: variant.summaryRequest }
  })
  const options = { policies: builtInPolicies, sliceMs: Number.POSITIVE_INFINITY, ...variant.options }
  await Effect.runPromise(program.pipe(Effect.provide(Compactor.layer(options).pipe(Layer.provide(services)))))
  engine.summarizerInput = counter.tokens
  const requests = {
    tokens: counter.tokens,
    cacheable: counter.cacheable,
    calls: counter.calls,
    shared: counter.shared,
    passed,
    verdicts,
    summaryTokens: counter.summaryTokens,
    failures: counter.failures,
    trimmed
  }
  return { engine, masking, summaryTail, peer, requests, ms: elapsedMs(started) }
}

// ---------------------------------------------------------------------------
// The report

const pct = (
  t: Tally,
  kind: FactKind
): number => (t.expected[kind] === 0 ? Number.NaN : (100 * t.present[kind]) / t.expected[kind])
const formatPct = (value: number): string => (Number.isNaN(value) ? "-" : `${value.toFixed(1)}%`)
const ratio = (a: number, b: number): string => (b === 0 ? (a === 0 ? "1.00x" : "-") : `${(a / b).toFixed(2)}x`)

const main = async (): Promise<void> => {
  const runs = loadRuns()
  if (runs.length === 0) {
    console.log("session economics: no session to replay")
    return
  }
  const started = now()
  const factsByRun = runs.map(factsOfRun)
  const factsMs = elapsedMs(started)
  const calls = runs.reduce((n, run) => n + run.calls.length, 0)
  console.log(
    `context-compressor session economics: ${runs.length} sessions (${
      runs.length - 1
    } recorded runs from ${directory} and the example session), ` +
      `${formatCount(calls)} model calls, a checkpoint before every assistant message`
  )
  console.log(
    `chars/4 tokens, offline summariser, default settings; facts sampled at ${
      every === 1 ? "every call" : `every ${every}th call and the last`
    }`
  )
  console.log(
    "summariser input: engine = chars/4 of every summariser request (system + prompt, 4 tokens a message) it made, counted by a wrapper around the offline summariser; " +
      "summary plus tail = the tokens of the span it summarised"
  )
  console.log(
    "cost units: 0.1 per cached token, 1.25 per uncached token, per compaction its summariser input at 1.0 and 2,000 output tokens at 5.0"
  )
  console.log(
    "cache breaks: calls without a compaction whose request changed a message already sent; facts: % present over all sampled calls " +
      "(summary plus tail's summary is the offline summariser's, which leaves the first message to the engine's pin)"
  )
  const verdicts: Array<string> = []
  const summaryRows: Array<ReadonlyArray<string>> = []
  const timings: Array<string> = []
  for (const contextWindow of windows) {
    const result = await replayWindow(runs, factsByRun, contextWindow, { summaryRequest: "delimited", baselines: true })
    const shared = sharedPrefix
      ? await replayWindow(runs, factsByRun, contextWindow, { summaryRequest: "shared-prefix", baselines: false })
      : undefined
    const before: Array<{ readonly name: string; readonly tally: Tally }> = []
    for (const lever of withLevers ? levers : []) {
      before.push({
        name: lever.name,
        tally: (await replayWindow(runs, factsByRun, contextWindow, {
          summaryRequest: "delimited",
          options: lever.options,
          baselines: false
        })).engine
      })
    }
    timings.push(
      `${formatCount(contextWindow)}: ${(result.ms / 1000).toFixed(1)} s${
        shared === undefined ? "" : ` + ${(shared.ms / 1000).toFixed(1)} s shared-prefix`
      }`
    )
    const b = result.summaryTail
    const peer = result.peer
    const strategies: ReadonlyArray<readonly [string, Tally]> = [
      ["engine", result.engine],
      ...before.map((lever) => [`engine, ${lever.name}`, lever.tally] as const),
      ["peer model", peer],
      ["observation masking", result.masking],
      ["summary plus tail", b]
    ]
    const rows = strategies.map(([name, t]) => [
      name,
      formatCount(t.calls),
      formatCount(t.compactions),
      t.compactions === 0 ? "-" : (t.calls / t.compactions).toFixed(1),
      formatCount(t.summarizerInput),
      formatCount(t.sent),
      formatCount(t.uncached),
      formatCount(t.breaks),
      formatCount(costOf(t)),
      String(t.overWindow),
      formatPct(pct(t, "firstMessage")),
      formatPct(pct(t, "filesWritten")),
      formatPct(pct(t, "testCommands")),
      formatPct(pct(t, "errorLine")),
      formatPct(pct(t, "workingIds")),
      ratio(t.compactions, peer.compactions),
      ratio(costOf(t), costOf(peer)),
      ratio(t.summarizerInput, peer.summarizerInput),
      ratio(t.compactions, b.compactions),
      ratio(costOf(t), costOf(b)),
      ratio(t.summarizerInput, b.summarizerInput)
    ])
    console.log(
      `\nwindow ${formatCount(contextWindow)} (trigger ${
        formatCount(triggerOf(contextWindow))
      }), ${result.engine.errors} engine errors`
    )
    printTable(
      [
        "strategy",
        "calls",
        "compactions",
        "one every",
        "summariser in",
        "tokens sent",
        "uncached",
        "cache breaks",
        "cost units",
        "over window",
        "first msg",
        "files written",
        "test cmds",
        "error line",
        "working ids",
        "compactions ÷ peer",
        "cost ÷ peer",
        "summariser in ÷ peer",
        "compactions ÷ b",
        "cost ÷ b",
        "summariser in ÷ b"
      ],
      rows
    )
    const shares = result.engine.afterShares
    if (shares.length > 0) {
      const over = shares.filter((s) => s > 0.5).length
      console.log(
        `engine view after a compaction, share of the trigger: min ${formatPct(100 * Math.min(...shares))}, median ${
          formatPct(100 * median(shares))
        }, ` +
          `max ${formatPct(100 * Math.max(...shares))}; ${over} of ${shares.length} over 50 %`
      )
    } else {
      console.log("engine view after a compaction: no compaction")
    }
    if (b.afterShares.length > 0) {
      console.log(
        `summary plus tail after a compaction: median ${formatPct(100 * median(b.afterShares))} of the trigger`
      )
    }
    if (peer.afterShares.length > 0) {
      console.log(`peer model after a compaction: median ${formatPct(100 * median(peer.afterShares))} of the trigger`)
    }
    // The summariser request's two shapes, in the same run: the engine replayed again with summary_request = "shared-prefix".
    if (shared !== undefined) {
      const sharedResult = shared
      const shapes = ([["delimited", result], ["shared-prefix", sharedResult]] as const).map(([name, r]) => {
        const q = r.requests
        const uncached = q.tokens - q.cacheable
        return {
          name,
          q,
          uncached,
          cost: 1.0 * uncached + 0.1 * q.cacheable,
          passRate: q.verdicts === 0 ? Number.NaN : (100 * q.passed) / q.verdicts,
          compactions: r.engine.compactions
        }
      })
      const [d, p] = shapes as unknown as readonly [typeof shapes[number], typeof shapes[number]]
      printTable(
        [
          "summary request",
          "compactions",
          "calls",
          "shared-prefix calls",
          "gate pass rate",
          "input tokens",
          "cacheable",
          "uncached",
          "input cost units",
          "input ÷ delimited",
          "uncached ÷ delimited",
          "cost ÷ delimited"
        ],
        shapes.map((x) => [
          x.name,
          formatCount(x.compactions),
          formatCount(x.q.calls),
          formatCount(x.q.shared),
          formatPct(x.passRate),
          formatCount(x.q.tokens),
          `${formatCount(x.q.cacheable)} (${x.q.tokens === 0 ? "-" : formatPct((100 * x.q.cacheable) / x.q.tokens)})`,
          formatCount(x.uncached),
          formatCount(x.cost),
          ratio(x.q.tokens, d.q.tokens),
          ratio(x.uncached, d.uncached),
          ratio(x.cost, d.cost)
        ])
      )
      console.log(
        `summary request: shared-prefix keeps the gate's pass rate ${formatPct(p.passRate)} vs ${
          formatPct(d.passRate)
        } (offline summariser: the same summary either way; ` +
          `a model's pass rate needs a model), sends ${ratio(p.q.tokens, d.q.tokens)} the input tokens of which ${
            formatPct((100 * p.q.cacheable) / Math.max(p.q.tokens, 1))
          } cacheable, ` +
          `for ${ratio(p.cost, d.cost)} the input cost (1.0 an uncached token, 0.1 a cached one)`
      )
    }
    const e = result.engine
    const checks: ReadonlyArray<readonly [string, boolean]> = [
      [`compactions ${e.compactions} ≤ ${peer.compactions}`, e.compactions <= peer.compactions],
      [`cost ${ratio(costOf(e), costOf(peer))} ≤ 1`, costOf(e) <= costOf(peer)],
      [`files ${formatPct(pct(e, "filesWritten"))} ≥ 95 %`, !(pct(e, "filesWritten") < 95)],
      [`tests ${formatPct(pct(e, "testCommands"))} ≥ 95 %`, !(pct(e, "testCommands") < 95)],
      [
        `ids ${formatPct(pct(e, "workingIds"))} ≥ peer ${formatPct(pct(peer, "workingIds"))}`,
        !(pct(e, "workingIds") < pct(peer, "workingIds"))
      ],
      [
        `error ${formatPct(pct(e, "errorLine"))} ≥ peer ${formatPct(pct(peer, "errorLine"))}`,
        !(pct(e, "errorLine") < pct(peer, "errorLine"))
      ],
      [`first ${formatPct(pct(e, "firstMessage"))} = 100 %`, !(pct(e, "firstMessage") < 100)],
      [`over window ${e.overWindow} = 0`, e.overWindow === 0 && e.errors === 0],
      [`cache breaks ${e.breaks} = 0`, e.breaks === 0]
    ]
    const failed = checks.filter(([, ok]) => !ok).map(([what]) => what)
    const verdict =
      `window ${formatCount(contextWindow)}: ${failed.length === 0 ? "HOLDS" : `FAILS (${failed.join("; ")})`}` +
      (failed.length === checks.length
        ? ""
        : `; holds: ${checks.filter(([, ok]) => ok).map(([what]) => what).join("; ")}`)
    console.log(`must hold: ${verdict}`)
    verdicts.push(verdict)
    summaryRows.push([
      formatCount(contextWindow),
      `${formatCount(e.compactions)} / ${formatCount(peer.compactions)} / ${formatCount(b.compactions)}`,
      ratio(e.compactions, peer.compactions),
      ratio(e.compactions, b.compactions),
      ratio(costOf(e), costOf(peer)),
      ratio(costOf(e), costOf(b)),
      ratio(e.summarizerInput, peer.summarizerInput),
      ratio(e.summarizerInput, b.summarizerInput),
      ...(["filesWritten", "testCommands", "errorLine", "workingIds"] as const).map((kind) =>
        [e, peer, b].map((t) => formatPct(pct(t, kind)).replace("%", "")).join(" / ")
      )
    ])
  }
  console.log(
    "\nper window (engine ÷ peer model and ÷ summary plus tail; facts: engine / peer / summary plus tail, %):"
  )
  printTable(
    [
      "window",
      "compactions e/peer/b",
      "comp ÷ peer",
      "comp ÷ b",
      "cost ÷ peer",
      "cost ÷ b",
      "summ in ÷ peer",
      "summ in ÷ b",
      "files",
      "test cmds",
      "newest error",
      "working ids"
    ],
    summaryRows
  )
  console.log("\nmust hold (issue 31, at every window):")
  for (const verdict of verdicts) console.log(`  ${verdict}`)
  console.log(`\nfacts computed in ${(factsMs / 1000).toFixed(1)} s; replay per window: ${timings.join(", ")}`)
}

// ---------------------------------------------------------------------------
// The model mode: the chat-completions summariser against a local server

const summaryShape = (label: string, r: WindowResult) => {
  const q = r.requests
  const sorted = [...q.summaryTokens].sort((x, y) => x - y)
  const at = (
    share: number
  ) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!)
  const failures = [...q.failures].map(([reason, n]) => `${reason} ${n}`).join(", ")
  return [
    label,
    formatCount(r.engine.compactions),
    formatCount(q.calls),
    failures === "" ? "0" : failures,
    `${formatCount(q.passed)}/${formatCount(q.verdicts)}`,
    formatPct(q.verdicts === 0 ? Number.NaN : (100 * q.passed) / q.verdicts),
    formatCount(q.trimmed),
    sorted.length === 0
      ? "-"
      : `${formatCount(at(0))} / ${formatCount(at(0.5))} / ${formatCount(at(0.9))} / ${formatCount(sorted.at(-1)!)}`,
    formatCount(q.tokens),
    `${formatCount(q.cacheable)} (${q.tokens === 0 ? "-" : formatPct((100 * q.cacheable) / q.tokens)})`,
    ...(["filesWritten", "testCommands", "errorLine", "workingIds"] as const).map((kind) =>
      formatPct(pct(r.engine, kind))
    )
  ]
}

const modelMain = async (url: string): Promise<void> => {
  const runs = loadRuns()
  if (runs.length === 0) {
    console.log("session economics (model): no session to replay")
    return
  }
  const factsByRun = runs.map(factsOfRun)
  const calls = runs.reduce((n, run) => n + run.calls.length, 0)
  const summarizer = SummarizerChatCompletions.layer({
    baseUrl: url,
    ...(summarizerModel === undefined ? {} : { model: summarizerModel }),
    ...(summarizerKey === undefined ? {} : { apiKey: Redacted.make(summarizerKey) }),
    timeout: Duration.millis(summarizerTimeoutMs)
  }).pipe(Layer.provide(NodeHttpClient.layerUndici))
  console.log(
    `context-compressor session economics, model mode: the chat-completions summariser at ${url}${
      summarizerModel === undefined ? "" : ` (model ${summarizerModel})`
    }; ` +
      `${runs.length} sessions, ${
        formatCount(calls)
      } model calls; each window replayed with summary_request = delimited, then shared-prefix, on the same calls`
  )
  console.log(
    "summary tokens: chars/4 of each summary the server gave back (min / median / p90 / max); facts: % present over all sampled calls"
  )
  for (const contextWindow of windows) {
    const delimited = await replayWindow(runs, factsByRun, contextWindow, {
      summaryRequest: "delimited",
      baselines: false,
      summarizer
    })
    const shared = await replayWindow(runs, factsByRun, contextWindow, {
      summaryRequest: "shared-prefix",
      baselines: false,
      summarizer
    })
    console.log(
      `\nwindow ${formatCount(contextWindow)} (trigger ${formatCount(triggerOf(contextWindow))}), ${
        delimited.engine.errors + shared.engine.errors
      } engine errors`
    )
    printTable(
      [
        "summary request",
        "compactions",
        "summariser calls",
        "failed calls",
        "gate passed",
        "gate pass rate",
        "trimmed",
        "summary tokens",
        "input tokens",
        "cacheable",
        "files",
        "test cmds",
        "error line",
        "working ids"
      ],
      [summaryShape("delimited", delimited), summaryShape("shared-prefix", shared)]
    )
    const d = delimited.requests
    const p = shared.requests
    console.log(
      `window ${formatCount(contextWindow)}: gate pass rate ${
        formatPct(d.verdicts === 0 ? Number.NaN : (100 * d.passed) / d.verdicts)
      } delimited, ` +
        `${
          formatPct(p.verdicts === 0 ? Number.NaN : (100 * p.passed) / p.verdicts)
        } shared-prefix; shared-prefix sends ${ratio(p.tokens, d.tokens)} the input tokens, ` +
        `${formatPct((100 * p.cacheable) / Math.max(p.tokens, 1))} of them cacheable`
    )
  }
}

const entry = summarizerUrl === undefined ? main() : modelMain(summarizerUrl)
entry.catch((error: unknown) => {
  console.error(`session economics: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
