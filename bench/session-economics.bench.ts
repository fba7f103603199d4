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
 * - the peer model (issues 31 and 46; `peerCall`): OpenWorker's compaction,
 *   calibrated to andrewyng/openworker at 83ab5bd, `coworker/compaction.py`
 *   (cited `L<n>`) and the loop that calls it, `coworker/engine.py`:
 *   - its messages are the run's as OpenAI chat messages, and its estimate is
 *     `json.dumps` characters // 4 of them (`estimate_tokens`, L48-57;
 *     `pyJsonChars` counts as Python writes: `, ` and `: `, `\uXXXX` outside
 *     printable ASCII);
 *   - the trigger is min(int(0.8 × window), 250,000) (L23-24, L60-67), reached
 *     when the signal is at least it (`should_compact`, L70-79), checked
 *     before each call (engine.py L363-373); the signal is the previous
 *     request's prompt tokens as the provider counted them (engine.py
 *     L436-439, L493; providers/base.py L40-43: the bench's tokenizer of the
 *     view sent), the estimate of the outbound view when there is none (the
 *     first call, and the check again after an overflow's compaction, which
 *     drops it, engine.py L564, L570);
 *   - the verbatim tail is what fits int(0.25 × trigger) tokens of the
 *     estimate (L29; engine.py L512-516) from the earliest user message that
 *     fits, else, inside the newest user turn, the earliest assistant message
 *     that fits, else the newest assistant message (`pick_boundary`, L147-174);
 *     a boundary not past the previous one compacts nothing (L428-430);
 *   - the span summarised is the messages since the previous boundary (L431-432),
 *     sent to the summariser as a system prompt of 1,800 characters (L312-328)
 *     and the rendered span, each tool result whitespace-collapsed within 400
 *     characters (L34), each call's arguments within 200, system messages left
 *     out, all within the newest 400,000 characters (L35, L337-370), the
 *     previous summary first on a later compaction (the fold, L373-388); its
 *     input is chars/4 of those two messages, 4 tokens a message;
 *   - the summary is a model's reply under 3,000 tokens (L31) in eight
 *     sections (L312-328); here the offline summariser's text of what that
 *     summariser is shown (the clipped span, the previous summary first),
 *     clipped head and tail to 2,000 tokens, the output the cost units charge;
 *   - the working state is the span's alone, not carried over (L447,
 *     L219-266): the `path` or `file_path` of calls whose name holds write,
 *     edit, append, save, create or patch (the newest 20 distinct, L252), the
 *     `command` of calls named `run_shell` within 160 characters with their
 *     exit status (the last 10, L233-236, L256), artifacts (10, L260) and the
 *     tools used (L265); the recorded runs' tools (`bash`, `workspace_*`)
 *     give it little beyond the tools' names;
 *   - the user's messages carry over: each whitespace-collapsed within 600
 *     characters (L40, L284-298), the newest 40 across compactions (L41,
 *     L301-307), the dropped ones counted;
 *   - the view is the system message, one user message holding the summary,
 *     the state, the user's messages and a continuation note (L501-521; the
 *     bench's own wording), then the messages from the boundary on (L524-540);
 *   - a request over the window is refused by the provider and compacts again,
 *     falling back to trimming 10 % of the messages since the boundary (L42,
 *     L455-498; engine.py L401-411, L566-571), after which the trigger is
 *     checked again on the estimate; trims are counted apart, not as
 *     compactions.
 *   With `--peer-py FILE` (or `CONTEXT_COMPRESSOR_BENCH_PEER_PY`) the bench also
 *   replays that compaction.py itself (its functions, under a Python driver it
 *   writes to a temporary folder, `python3` or `PYTHON`), the summaries its
 *   summariser asks for written by the bench as the model's, and prints how far
 *   the model is from it (compactions, summariser input, tokens sent, cost,
 *   facts; the target is within 5 %). On the shared sessions, at every window
 *   from 4k to 1M, the two give the same compactions, trims and facts, and
 *   tokens sent and cost within 0.05 %; the summariser input is 0.2 % apart at
 *   most (a fold's heading is in the bench's words);
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
 * newest error line, working ids, numbers from tool results used later; a
 * fact survives when its text, or its JSON-escaped form, is in the view's
 * text, runs of whitespace and line-leading quote marks ignored; an id when
 * it is also one of the view's id-like tokens, a number when it is one of the
 * view's numbers); the ratios to the peer model and to summary plus tail, a
 * verdict against the issue's "must hold", and the engine's view after each
 * compaction as a share of the trigger. The closing table gives, per window,
 * the engine's compactions, cost and summariser input over the peer's and
 * over summary plus tail's, and each fact's share for the engine, the peer
 * and summary plus tail with the engine's over the peer's.
 *
 * Numbers from tool results used later (issue 46): a number is a run of
 * digits with dot-separated runs of digits after it (an integer, a decimal, a
 * version), at least 3 characters, not inside a word, id or path (no letter,
 * digit, `_`, `.` or `-` before it), followed by at most 3 letters (a unit,
 * `0.45s`) and then no letter, digit or `_` (`numbersIn`). A number is a fact
 * from the call on which an assistant message (its text or its calls'
 * arguments) holds it after it first appeared in a tool result, no earlier
 * message having held it (line numbers, counts, timings, versions, status
 * codes a later command or statement reuses). Like a working id it survives
 * in the view's text, the referring message included: a strategy that keeps
 * the assistant's messages keeps it.
 *
 * Issue 46's levers, each measured here at 8k–64k (ratios to the peer in
 * docs/compaction.md, "Issue 46"). Kept: the engine keeps working numbers by
 * the rule the bench counts them with (`WorkingIds.numbers`, listed in the
 * block under "Numbers in use": 32–94 % → 99.9–100 %), and the block quotes
 * the compacted part's newest error line (`NewestError`: 81.7 → 97.7 % at
 * 8k), neither changing compactions or cost. Tried and not kept: a smaller
 * view after a compaction (the view fitted to 40–70 % of the target, the
 * block 80 % of that, or a shorter verbatim tail only), which cuts cost to
 * 0.67–0.73× at 8k and 0.85–1.00× at 16k with the facts kept but breaks the
 * recall, AI SDK and real-input tests (a verbatim tail without tool results,
 * handles of the earlier block dropped, the newest message's head cut at 8k);
 * tool results clipped to 400 characters and arguments to 200 in the
 * summariser's request, which leaves its input within 5 % (the request is
 * bounded by `Budget.summaryInputChars`, which the span fills either way).
 * Kept later: an earlier block heads the next summariser request by its
 * summary only (`CompactedBlock.summaryPart`): summariser input ÷ peer
 * 0.89/1.18/1.28/2.45 → 0.63/0.96/1.27/2.29 at 8k/16k/32k/64k, cost 0.79/
 * 1.09/1.05/1.03 → 0.77/1.08/1.05/1.03, compactions and facts unchanged.
 * Tried and not kept: the span within a quarter of the trigger (0.01–0.02×
 * for half of a long span unseen by a real summariser), a verbatim tail of
 * 15 % of the trigger (the recall and AI SDK tests again), the block 45 % of
 * the target, `target_after_pct` 40 or 30 (facts at 8k), the clip again. The
 * bound under the table in docs/compaction.md shows why 0.8× is out of reach
 * from 16k up for any strategy that compacts at the peer's trigger.
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
 * `--no-example`, `--calls N`, `--no-shared-prefix`, `--no-levers`,
 * `--peer-py FILE`).
 * Progress on stderr, results on stdout.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Readline from "node:readline"
import { fileURLToPath } from "node:url"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as WorkingState from "../src/face/engine/WorkingState.js"
import * as SummarizerChatCompletions from "../src/face/layers/SummarizerChatCompletions.js"
import * as SummarizerOffline from "../src/face/layers/SummarizerOffline.js"
import * as Testing from "../src/face/layers/Testing.js"
import * as TokenizerApprox from "../src/face/layers/TokenizerApprox.js"
import * as Transcript from "../src/face/models/Transcript.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as Summarizer from "../src/face/services/Summarizer.js"
import { fromOpenAI, transcriptsDirectory } from "../test/openai.js"
import { argValue } from "./generate.js"
import { toOpenAI } from "./recorded.js"
import { elapsedMs, formatCount, median, now, printTable } from "./timing.js"

const windows = (argValue("--windows") ??
  (argValue("--summarizer-url") ?? process.env["CONTEXT_COMPRESSOR_BENCH_SUMMARIZER_URL"]
    ? "8000"
    : "4000,8000,16000,32000,64000,128000,256000,512000,1000000")).split(",").map(Number).filter((n) =>
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
/** OpenWorker's `coworker/compaction.py` to replay beside the peer model, by flag or environment variable. */
const peerPy = argValue("--peer-py") ?? process.env["CONTEXT_COMPRESSOR_BENCH_PEER_PY"]
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
  /** Numbers from tool results used later: each as written, matched as a number of the view ({@link numbersIn}). */
  readonly numbers: ReadonlyArray<string>
}

const factKinds = ["firstMessage", "filesWritten", "testCommands", "errorLine", "workingIds", "numbers"] as const
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

/**
 * The numbers of a text: a run of digits, with dot-separated runs of digits after it (an integer, a decimal,
 * a version), at least 3 characters long; not part of a word, an id or a path (the character before it is no
 * letter, digit, `_`, `.` or `-`), and followed by at most 3 letters (a unit: `0.45s`, `12ms`, `3MB`) and then
 * no letter, digit or `_`.
 */
const numbersIn = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const match of text.matchAll(/\d+(?:\.\d+)*/g)) {
    const number = match[0]
    const at = match.index ?? 0
    if (number.length < 3 || /[A-Za-z0-9_.-]/.test(text[at - 1] ?? "")) continue
    if (!/^[A-Za-z]{0,3}(?![A-Za-z0-9_])/.test(text.slice(at + number.length, at + number.length + 4))) continue
    out.push(number)
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
  const numberSource = new Map<string, "tool" | "other">()
  const numbers = new Set<string>()
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
        for (const number of numbersIn(message.content)) if (!numberSource.has(number)) numberSource.set(number, "tool")
      } else {
        for (const id of idCandidates(message.content)) if (!source.has(id)) source.set(id, "other")
        // A number a tool result gave, used in a later assistant message (its text or its calls' arguments).
        for (const number of numbersIn(Transcript.text(message))) {
          if (numberSource.get(number) === "tool") {
            if (message._tag === "Assistant") numbers.add(number)
          } else if (!numberSource.has(number)) {
            numberSource.set(number, "other")
          }
        }
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
      workingIds: [...working],
      numbers: [...numbers]
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
  /** The peer's compactions that fell back to its trim (no summary; not counted in `compactions`). */
  trims: number
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
  trims: 0,
  present: { firstMessage: 0, filesWritten: 0, testCommands: 0, errorLine: 0, workingIds: 0, numbers: 0 },
  expected: { firstMessage: 0, filesWritten: 0, testCommands: 0, errorLine: 0, workingIds: 0, numbers: 0 },
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
    const joined = view.map(Transcript.text).join("\n")
    const tokensInView = new Set(idCandidates(joined))
    const numbersInView = new Set(numbersIn(joined))
    for (const kind of factKinds) {
      for (const fact of facts[kind]) {
        tally.expected[kind]++
        const present = typeof fact !== "string"
          ? fact.some((form) => text.includes(form))
          : kind === "numbers"
          ? numbersInView.has(fact)
          : tokensInView.has(fact) || text.includes(fact)
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
// The peer: OpenWorker's compaction
//
// Calibrated to andrewyng/openworker at 83ab5bd, `coworker/compaction.py` (cited `L<n>`) and the engine loop
// that calls it, `coworker/engine.py` (cited `engine.py L<n>`). Written here from what that code does; the
// header comment lists each parameter.

const blockIds = [summaryId, stateId]

/** DEFAULT_THRESHOLD_PCT and DEFAULT_CAP_TOKENS (L23-24): the trigger is min(int(0.8 × window), 250,000) (L60-67). */
const peerThreshold = 0.8
const peerCapTokens = 250_000
/** KEEP_RECENT_FRACTION (L29): the verbatim tail's budget is int(0.25 × trigger) (engine.py L512-516). */
const peerKeepFraction = 0.25
/**
 * The summary's size in the view: the bench charges 2,000 output tokens a compaction (`costOf`), so the
 * summary is that long at most (the real one is a model's reply under SUMMARY_MAX_TOKENS = 3,000, L31).
 */
const peerSummaryTokens = 2_000
/** What the summariser is shown (L337-370): a tool result whitespace-collapsed within 400 characters (L34), arguments within 200, all within the newest 400,000 characters (L35). */
const peerToolResultClip = 400
const peerArgumentsClip = 200
const peerRenderBudget = 400_000
/** The length of SUMMARY_SYSTEM_PROMPT (L312-328), the summariser request's system message. */
const peerSystemPromptChars = 1_800
/** The user's messages in the block: each whitespace-collapsed within 600 characters (L40), the newest 40 kept across compactions (L41). */
const peerUserClip = 600
const peerUsersMax = 40
/** The trim fallback advances past 10 % of the messages not yet compacted (L42, L455-498). */
const peerTrimFraction = 0.1
/** The working state's caps (L219-266): 20 files, the last 10 commands, 10 artifacts. */
const peerFilesMax = 20
const peerCommandsMax = 10
const peerArtifactsMax = 10
const peerCommandClip = 160
const peerWriteHints = ["write", "edit", "append", "save", "create", "patch"]
const peerArtifactHints = ["artifact", "publish", "deploy"]

const peerTriggerOf = (contextWindow: number): number =>
  Math.min(Math.floor(peerThreshold * contextWindow), peerCapTokens)

/** A run's messages as the peer keeps them: OpenAI chat messages, one per transcript message, and the length of each as Python's `json.dumps` writes it. */
interface PeerSession {
  readonly chat: ReadonlyArray<Record<string, unknown>>
  readonly jsonChars: ReadonlyArray<number>
  /** The summaries written so far, by span and previous summary: the model and compaction.py ask for the same ones. */
  readonly summaries: Map<string, string>
}

/** The length of a string as `json.dumps` writes it (`ensure_ascii`: outside printable ASCII, `\uXXXX` a UTF-16 unit). */
const pyStringChars = (text: string): number => {
  let n = 2
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    n += c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c
      ? 2
      : c >= 0x20 && c <= 0x7e
      ? 1
      : 6
  }
  return n
}

/** The length of a JSON value as `json.dumps` writes it (separators `, ` and `: `): estimate_tokens' measure (L48-57). */
const pyJsonChars = (value: unknown): number => {
  if (value === null || value === undefined) return 4
  if (typeof value === "string") return pyStringChars(value)
  if (typeof value === "boolean") return value ? 4 : 5
  if (typeof value === "number") return String(value).length
  if (Array.isArray(value)) {
    return value.length === 0 ? 2 : value.reduce((n: number, item) => n + pyJsonChars(item) + 2, 0)
  }
  const entries = Object.entries(value as Record<string, unknown>)
  return entries.length === 0
    ? 2
    : entries.reduce((n, [key, item]) => n + pyStringChars(key) + 2 + pyJsonChars(item) + 2, 0)
}

const peerSessionOf = (run: Run): PeerSession => {
  const chat = toOpenAI(run.transcript)
  return { chat, jsonChars: chat.map(pyJsonChars), summaries: new Map() }
}

const roleOf = (message: Record<string, unknown>): unknown => message["role"]
const collapse = (text: string): string => text.split(/\s+/).filter((word) => word !== "").join(" ")
const clipped = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)
const chatText = (content: unknown): string => (typeof content === "string" ? content : "")

/**
 * pick_boundary (L147-174): where the verbatim tail starts, the earliest user message (after the system
 * message) whose suffix's estimate fits `keep`; when the newest user turn alone does not fit, the earliest
 * assistant message inside it that fits, else the newest assistant message; none at or before the first message.
 */
const peerBoundary = (session: PeerSession, end: number, keep: number): number | undefined => {
  const start = roleOf(session.chat[0] ?? {}) === "system" ? 1 : 0
  const suffix = new Array<number>(end + 1).fill(0)
  for (let i = end - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + session.jsonChars[i]!
  const users: Array<number> = []
  const assistants: Array<number> = []
  for (let i = start; i < end; i++) {
    const role = roleOf(session.chat[i]!)
    if (role === "user") users.push(i)
    else if (role === "assistant") assistants.push(i)
  }
  const fit = (candidates: ReadonlyArray<number>) => candidates.find((i) => Math.floor(suffix[i]! / 4) <= keep)
  let boundary = fit(users)
  if (boundary === undefined && users.length > 0) {
    const inside = assistants.filter((i) => i > users.at(-1)!)
    boundary = fit(inside) ?? inside.at(-1) ?? users.at(-1)
  }
  if (boundary === undefined) boundary = fit(assistants) || assistants.at(-1)
  return boundary === undefined || boundary <= start ? undefined : boundary
}

/** The calls of a span with their arguments (an object, else none) and their results (L183-199). */
const peerCalls = (span: ReadonlyArray<Record<string, unknown>>) => {
  const results = new Map<unknown, unknown>()
  for (const message of span) if (roleOf(message) === "tool") results.set(message["tool_call_id"], message["content"])
  return span.flatMap((message) => {
    if (roleOf(message) !== "assistant" || !Array.isArray(message["tool_calls"])) return []
    return (message["tool_calls"] as ReadonlyArray<Record<string, unknown>>).map((call) => {
      const fn = (call["function"] ?? {}) as Record<string, unknown>
      let args: Record<string, unknown> = {}
      try {
        const parsed = JSON.parse(
          typeof fn["arguments"] === "string" && fn["arguments"] !== "" ? fn["arguments"] : "{}"
        )
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
          args = parsed as Record<string, unknown>
        }
      } catch {
        // arguments that are no JSON object count as none
      }
      return { name: String(fn["name"] ?? ""), args, result: results.get(call["id"]) }
    })
  })
}

/** A shell call's status from its result (L202-216): `error`, `ok` or `exit N` from a JSON envelope, else none. */
const peerStatus = (result: unknown): string => {
  if (typeof result !== "string") return ""
  try {
    const parsed = JSON.parse(result) as unknown
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return ""
    const record = parsed as Record<string, unknown>
    if (
      record["error"] !== undefined && record["error"] !== null && record["error"] !== false &&
      record["error"] !== "" && record["error"] !== 0
    ) return "error"
    if ("exit_code" in record) {
      const code = record["exit_code"]
      return code === 0 || code === "0" ? "ok" : `exit ${code === null ? "None" : String(code)}`
    }
  } catch {
    // not JSON
  }
  return ""
}

/**
 * extract_working_state (L219-266), of the span alone: files written (a `path` or `file_path` argument of a
 * call whose name holds write, edit, append, save, create or patch), commands (the `command` argument of a
 * call named `run_shell`, with its status), artifacts and the tools used.
 */
const peerWorkingState = (span: ReadonlyArray<Record<string, unknown>>): string => {
  const files: Array<string> = []
  const commands: Array<string> = []
  const artifacts: Array<string> = []
  const tools: Array<string> = []
  for (const { args, name, result } of peerCalls(span)) {
    if (name !== "" && !tools.includes(name)) tools.push(name)
    const lowered = name.toLowerCase()
    const path = args["path"] || args["file_path"]
    if (path && peerWriteHints.some((hint) => lowered.includes(hint))) files.push(String(path))
    if (lowered === "run_shell" && args["command"]) {
      const status = peerStatus(result)
      commands.push(
        clippedPlain(collapse(String(args["command"])), peerCommandClip) + (status === "" ? "" : `  [${status}]`)
      )
    }
    if (peerArtifactHints.some((hint) => lowered.includes(hint))) {
      const where = args["url"] || args["path"] || args["title"]
      if (where) artifacts.push(String(where))
    }
  }
  const newestFirst = (items: ReadonlyArray<string>, limit: number) => newestDistinct(items, limit).reverse()
  const lines = [
    ...section("Files written or edited, newest first:", newestFirst(files, peerFilesMax)),
    ...section("Shell commands, the latest:", commands.slice(-peerCommandsMax)),
    ...section("Artifacts produced:", newestFirst(artifacts, peerArtifactsMax)),
    ...(tools.length === 0 ? [] : [`Tools the compacted turns used: ${[...tools].sort().join(", ")}`])
  ]
  return lines.length === 0 ? "" : ["## Working state, read mechanically from the tool calls", ...lines].join("\n")
}
const clippedPlain = (text: string, max: number): string => text.slice(0, max)
const section = (heading: string, items: ReadonlyArray<string>): ReadonlyArray<string> =>
  items.length === 0 ? [] : [heading, ...items.map((item) => `- ${item}`)]

/** The newest `limit` distinct entries, oldest first. */
const newestDistinct = (entries: ReadonlyArray<string>, limit: number): Array<string> => {
  const out: Array<string> = []
  for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
    if (!out.includes(entries[i]!)) out.push(entries[i]!)
  }
  return out.reverse()
}

/** extract_user_messages (L284-298): the span's user messages, whitespace-collapsed, each within 600 characters. */
const peerUserMessages = (span: ReadonlyArray<Record<string, unknown>>): ReadonlyArray<string> =>
  span.flatMap((message) => {
    if (roleOf(message) !== "user") return []
    const text = collapse(chatText(message["content"]))
    return text === "" ? [] : [clipped(text, peerUserClip)]
  })

/** _render_span (L337-370)'s length: what the summariser is shown of a span. */
const peerRenderedChars = (span: ReadonlyArray<Record<string, unknown>>): number => {
  const lines: Array<string> = []
  for (const message of span) {
    const role = roleOf(message)
    if (role === "tool") {
      lines.push(`[tool result] ${clipped(collapse(chatText(message["content"])), peerToolResultClip)}`)
    } else if (role === "assistant") {
      for (
        const call of Array.isArray(message["tool_calls"])
          ? message["tool_calls"] as ReadonlyArray<Record<string, unknown>>
          : []
      ) {
        const fn = (call["function"] ?? {}) as Record<string, unknown>
        lines.push(
          `[assistant → ${String(fn["name"])}] ${clipped(collapse(String(fn["arguments"] ?? "")), peerArgumentsClip)}`
        )
      }
      const text = chatText(message["content"])
      if (text !== "") lines.push(`[assistant] ${text}`)
    } else if (role === "user") {
      lines.push(`[user] ${chatText(message["content"])}`)
    }
  }
  const rendered = lines.join("\n").length
  return rendered > peerRenderBudget ? peerRenderBudget + "(…oldest turns elided…)\n".length : rendered
}

/** The previous summary heading the span on a later compaction (L373-388), as the bench words it. */
const peerPriorHeading = "[the previous summary: carry what still matters into the new one]\n"
const peerPriorClosing = "\n\n[the conversation after it]\n"

/**
 * The summariser request's input tokens (summarizer_messages, L373-388): the system prompt and the rendered
 * span headed by the previous summary, chars/4 and 4 tokens a message as the engine's are counted.
 */
const peerSummarizerInput = (span: ReadonlyArray<Record<string, unknown>>, prior: string): number => {
  const body = peerRenderedChars(span) +
    (prior === "" ? 0 : peerPriorHeading.length + prior.length + peerPriorClosing.length)
  return Math.ceil(peerSystemPromptChars / 4) + 4 + Math.ceil(body / 4) + 4
}

/**
 * The summary of a span: the offline summariser's text of what the peer's summariser is shown (its tool
 * results and arguments clipped as `_render_span` clips them, system messages left out, the previous summary
 * first), clipped head and tail to {@link peerSummaryTokens}.
 */
const peerSummary = (run: Run, session: PeerSession, start: number, end: number, prior: string): string => {
  const key = `${start}:${end}:${prior}`
  const known = session.summaries.get(key)
  if (known !== undefined) return known
  const shown = run.transcript.slice(start, end).flatMap((message): ReadonlyArray<Transcript.Message> => {
    switch (message._tag) {
      case "System":
      case "Compacted":
        return []
      case "ToolResult":
        return [
          new Transcript.ToolResult({ ...message, content: clipped(collapse(message.content), peerToolResultClip) })
        ]
      case "Assistant":
        return [
          new Transcript.AssistantMessage({
            ...message,
            toolCalls: message.toolCalls.map((call) =>
              call.arguments.length > peerArgumentsClip
                ? new Transcript.ToolCall({ ...call, arguments: clipped(collapse(call.arguments), peerArgumentsClip) })
                : call
            )
          })
        ]
      default:
        return [message]
    }
  })
  const input = prior === ""
    ? shown
    : [new Transcript.UserMessage({ id: "peer-prior-summary", content: `${peerPriorHeading}${prior}` }), ...shown]
  const summary = headTail(SummarizerOffline.summarize(input), peerSummaryTokens * 4)
  session.summaries.set(key, summary)
  return summary
}

/** A compaction point (CompactionState, L85-100): the boundary, the summary, the span's working state, the user's messages. */
interface PeerCompaction {
  readonly boundary: number
  readonly summary: string
  readonly workingState: string
  readonly users: ReadonlyArray<string>
  readonly dropped: number
  readonly block: string
}

/** compacted_block (L501-521): one user message standing for everything before the boundary, as the bench words it. */
const peerBlock = (c: Omit<PeerCompaction, "block">): string =>
  [
    "<compacted-history>",
    "The earlier turns of this session were compacted; the summary below is what you remember of them.",
    "",
    c.summary,
    ...(c.workingState === "" ? [] : ["", c.workingState]),
    ...(c.users.length === 0 ? [] : [
      "",
      "## The user's messages in the compacted turns (verbatim, oldest first)",
      ...(c.dropped === 0
        ? []
        : [`(${c.dropped} older user messages left out: the summary above covers what they asked)`]),
      ...c.users.map((user) => `- ${user}`)
    ]),
    "",
    "Go on from where you stopped: take up the current work and the next step as described above. Do not ask again what was answered, do not recap, and do not mention the compaction. Re-read any file noted above whose contents you need.",
    "</compacted-history>"
  ].join("\n")

/** _cap_user_messages (L301-307): the newest 40, and how many were ever dropped. */
const peerCapped = (users: ReadonlyArray<string>, dropped: number) =>
  users.length <= peerUsersMax
    ? { users, dropped }
    : { users: users.slice(-peerUsersMax), dropped: dropped + users.length - peerUsersMax }

const peerCompaction = (fields: Omit<PeerCompaction, "block">): PeerCompaction => ({
  ...fields,
  block: peerBlock(fields)
})

/** The peer of one session: its compaction point, the previous request's tokens (the provider's usage), and counts. */
interface PeerState {
  compaction: PeerCompaction | undefined
  usage: number | undefined
  trims: number
}

/** apply_to_outbound (L524-540): the system message, the block as a user message, the messages from the boundary on. */
const peerView = (run: Run, compaction: PeerCompaction | undefined, end: number): Transcript.Transcript => {
  const prefix = run.transcript.slice(0, end)
  if (compaction === undefined || compaction.boundary <= 0 || compaction.boundary >= end) return prefix
  return [
    ...(prefix[0]?._tag === "System" ? [prefix[0]] : []),
    new Transcript.UserMessage({ id: `peer-block-${compaction.boundary}`, content: compaction.block }),
    ...prefix.slice(compaction.boundary)
  ]
}

/** estimate_tokens (L48-57) of the outbound view: json.dumps characters // 4. */
const peerEstimate = (session: PeerSession, compaction: PeerCompaction | undefined, end: number): number => {
  if (compaction === undefined || compaction.boundary <= 0 || compaction.boundary >= end) {
    return Math.floor(session.jsonChars.slice(0, end).reduce((a, b) => a + b, 0) / 4)
  }
  const system = roleOf(session.chat[0] ?? {}) === "system" ? session.jsonChars[0]! : 0
  const block = pyJsonChars({ role: "user", content: compaction.block })
  return Math.floor((system + block + session.jsonChars.slice(compaction.boundary, end).reduce((a, b) => a + b, 0)) / 4)
}

/**
 * The peer model: one call of OpenWorker's loop. Before the call (engine.py L363-373) it compacts when its
 * signal reaches the trigger (should_compact, L70-79): the tokens of the previous request as the provider
 * counted them (engine.py L436-439, L493; the bench's tokenizer), or the estimate of the outbound view when
 * there is none (the first call, or the check again after an overflow's compaction, engine.py L564, L570). A compaction (build_state,
 * L417-452) picks the boundary, gives up when it does not move past the previous one, and summarises the span
 * since that one, the previous summary first; a provider's refusal of a request over the window compacts
 * again with the trim as the fallback (engine.py L401-411, L566-571), then the loop checks its trigger again.
 */
const peerCall = (
  run: Run,
  session: PeerSession,
  state: PeerState,
  end: number,
  tokensOf: (message: Transcript.Message) => number,
  contextWindow: number,
  tally: Tally
): { readonly view: Transcript.Transcript; readonly compacted: boolean } => {
  const trigger = peerTriggerOf(contextWindow)
  const keep = Math.floor(peerKeepFraction * trigger)
  const sum = (messages: ReadonlyArray<Transcript.Message>) => messages.reduce((n, m) => n + tokensOf(m), 0)
  const compact = (force: boolean): boolean => {
    const prior = state.compaction
    const boundary = peerBoundary(session, end, keep)
    if (boundary !== undefined && (prior === undefined || boundary > prior.boundary)) {
      const start = prior?.boundary ?? 0
      const span = session.chat.slice(start, boundary)
      const { dropped, users } = peerCapped([...(prior?.users ?? []), ...peerUserMessages(span)], prior?.dropped ?? 0)
      state.compaction = peerCompaction({
        boundary,
        summary: peerSummary(run, session, start, boundary, prior?.summary ?? ""),
        workingState: peerWorkingState(span),
        users,
        dropped
      })
      tally.compactions++
      tally.summarizerInput += peerSummarizerInput(span, prior?.summary ?? "")
      return true
    }
    if (!force) return false
    // trim_state (L455-498): past 10 % of the messages since the boundary, at a user or assistant message; no summary.
    const start = prior?.boundary ?? 0
    if (end - start <= 2) return false
    let trimmed = start + Math.max(1, Math.floor((end - start) * peerTrimFraction))
    while (trimmed < end && !["user", "assistant"].includes(String(roleOf(session.chat[trimmed]!)))) trimmed++
    if (trimmed <= start || trimmed >= end) return false
    const span = session.chat.slice(start, trimmed)
    const { dropped, users } = peerCapped([...(prior?.users ?? []), ...peerUserMessages(span)], prior?.dropped ?? 0)
    state.compaction = peerCompaction({
      boundary: trimmed,
      summary: `${prior !== undefined && prior.summary !== "" ? `${prior.summary}\n\n` : ""}${peerTrimNote}`,
      workingState: peerWorkingState(span),
      users,
      dropped
    })
    state.trims++
    tally.trims++
    return true
  }
  let compacted = false
  const signal = state.usage || peerEstimate(session, state.compaction, end)
  if (signal >= trigger && compact(false)) compacted = true
  let view = peerView(run, state.compaction, end)
  while (sum(view) > contextWindow && compact(true)) {
    compacted = true
    if (peerEstimate(session, state.compaction, end) >= trigger) compact(false)
    view = peerView(run, state.compaction, end)
  }
  state.usage = sum(view)
  if (compacted) tally.afterShares.push(sum(view) / trigger)
  return { view, compacted }
}

const peerTrimNote =
  "(The older turns were dropped to fit the context window and have no summary. Re-read files and run commands again when their results are needed.)"

// ---------------------------------------------------------------------------
// compaction.py itself, when CONTEXT_COMPRESSOR_BENCH_PEER_PY names it

/**
 * The driver of compaction.py: written to a temporary folder, it loads the file, keeps one session at a time
 * and runs OpenWorker's loop around it as {@link peerCall} models it (the signal, the overflow path), the
 * summariser's request answered by the bench (the same summaries as the model's). JSON lines on stdin and
 * stdout: `run`, `call` and `overflow` from the bench, `summarize` and `view` back.
 */
const peerDriver = String.raw`import importlib.util, json, sys

spec = importlib.util.spec_from_file_location("openworker_compaction", sys.argv[1])
peer = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = peer
spec.loader.exec_module(peer)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


# The boundary build_state picked, for the summary the bench writes.
picked = {}
pick_boundary = peer.pick_boundary


def recording_pick(messages, *, keep_tokens):
    picked["boundary"] = pick_boundary(messages, keep_tokens=keep_tokens)
    return picked["boundary"]


peer.pick_boundary = recording_pick


class Reply:
    def __init__(self, text):
        self.text = text


class Session:
    def __init__(self, messages, window):
        self.messages = messages
        self.window = window
        self.end = 0
        self.state = None
        self.compactions = 0
        self.trims = 0
        self.summarizer_tokens = 0

    # The provider the summariser calls: the bench answers.
    def complete(self, model, messages, tools=None, max_tokens=None):
        self.summarizer_tokens += sum(-(-len(m["content"]) // 4) + 4 for m in messages)
        prior = self.state
        send({
            "op": "summarize",
            "start": prior.boundary_index if prior is not None else 0,
            "end": picked["boundary"],
            "prior": prior.summary_text if prior is not None else "",
        })
        return Reply(receive()["summary"])

    def due(self, usage):
        outbound = peer.apply_to_outbound(self.messages[: self.end], self.state)
        return peer.should_compact(usage or peer.estimate_tokens(outbound), self.window)

    def compact(self, force):
        canonical = self.messages[: self.end]
        keep = int(peer.KEEP_RECENT_FRACTION * peer.trigger_tokens(self.window))
        failed = False
        state = None
        try:
            state = peer.build_state(canonical, provider=self, model="peer", keep_tokens=keep, prior=self.state)
        except Exception as error:
            sys.stderr.write("compaction.py: build_state failed: %r\n" % (error,))
            failed = True
        if state is not None:
            self.state = state
            self.compactions += 1
            return True
        if failed or force:
            trimmed = peer.trim_state(canonical, prior=self.state)
            if trimmed is not None:
                self.state = trimmed
                self.trims += 1
                return True
        return False

    def view(self, changed):
        state = self.state
        applied = state is not None and 0 < state.boundary_index < self.end
        return {
            "op": "view",
            "changed": changed,
            "boundary": state.boundary_index if applied else None,
            "block": peer.compacted_block(state) if applied else None,
            "compactions": self.compactions,
            "trims": self.trims,
            "summarizerTokens": self.summarizer_tokens,
        }


session = None
while True:
    request = receive()
    try:
        if request["op"] == "run":
            session = Session(request["messages"], request["window"])
            send({"op": "ready"})
        elif request["op"] == "call":
            session.end = request["end"]
            send(session.view(session.due(request["usage"]) and session.compact(False)))
        elif request["op"] == "overflow":
            session.end = request["end"]
            changed = session.compact(True)
            if changed and session.due(None):
                session.compact(False)
            send(session.view(changed))
        else:
            send({"op": "error", "message": "unknown request " + str(request["op"])})
    except Exception as error:
        send({"op": "error", "message": repr(error)})
`

interface PeerReply {
  readonly op: string
  readonly message?: string
  readonly start?: number
  readonly end?: number
  readonly prior?: string
  readonly changed?: boolean
  readonly boundary?: number | null
  readonly block?: string | null
  readonly compactions?: number
  readonly trims?: number
  readonly summarizerTokens?: number
}

/** compaction.py running under its driver: requests answered in order, its summariser's requests answered by `summarize`. */
interface PeerProcess {
  readonly request: (
    message: object,
    summarize: (start: number, end: number, prior: string) => string
  ) => Promise<PeerReply>
  readonly close: () => void
}

const startPeerProcess = (file: string): PeerProcess => {
  const folder = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-peer-"))
  const driver = NodePath.join(folder, "driver.py")
  Fs.writeFileSync(driver, peerDriver)
  const child = ChildProcess.spawn(process.env["PYTHON"] ?? "python3", [driver, file], {
    stdio: ["pipe", "pipe", "inherit"]
  })
  let failure: Error | undefined
  child.on("error", (error) => {
    failure = error
  })
  const lines = Readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const write = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
  return {
    request: async (message, summarize) => {
      write(message)
      for (;;) {
        const next = await lines.next()
        if (next.done === true) throw failure ?? new Error(`the driver of ${file} ended (exit ${child.exitCode})`)
        const reply = JSON.parse(next.value as string) as PeerReply
        if (reply.op === "summarize") {
          write({ summary: summarize(reply.start ?? 0, reply.end ?? 0, reply.prior ?? "") })
        } else if (reply.op === "error") {
          throw new Error(`${file}: ${reply.message ?? "failed"}`)
        } else {
          return reply
        }
      }
    },
    close: () => {
      child.stdin.end()
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }
}

/** The view compaction.py gave: the system message, its block, the messages from its boundary on. */
const peerReplyView = (run: Run, reply: PeerReply, end: number): Transcript.Transcript => {
  const prefix = run.transcript.slice(0, end)
  if (reply.boundary === null || reply.boundary === undefined || typeof reply.block !== "string") return prefix
  return [
    ...(prefix[0]?._tag === "System" ? [prefix[0]] : []),
    new Transcript.UserMessage({ id: `peer-block-${reply.boundary}`, content: reply.block }),
    ...prefix.slice(reply.boundary)
  ]
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
  /** compaction.py itself, replayed beside its model when CONTEXT_COMPRESSOR_BENCH_PEER_PY names it. */
  readonly realPeer: Tally | undefined
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
  /** compaction.py to replay beside the peer model (with the baselines). */
  readonly peerProcess?: PeerProcess
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
  peerSessions: ReadonlyArray<PeerSession>,
  contextWindow: number,
  variant: Variant
): Promise<WindowResult> => {
  const started = now()
  const engine = newTally()
  const masking = newTally()
  const summaryTail = newTally()
  const peer = newTally()
  const real = variant.baselines ? variant.peerProcess : undefined
  const realPeer = real === undefined ? undefined : newTally()
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
      let sentReal: ReadonlyArray<string> = []
      const session = peerSessions[r]!
      const peerState: PeerState = { compaction: undefined, usage: undefined, trims: 0 }
      const summarize = (start: number, end: number, prior: string) => peerSummary(run, session, start, end, prior)
      let realUsage: number | undefined
      const realCounts = { compactions: 0, trims: 0, summarizerTokens: 0 }
      if (real !== undefined) {
        yield* Effect.promise(() =>
          real.request({ op: "run", messages: session.chat, window: contextWindow }, summarize)
        )
      }
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
        const peerStep = peerCall(run, session, peerState, end, tokensOf, contextWindow, peer)
        sentPeer = record(peer, peerStep.view, sentPeer, tokensOf, contextWindow, facts, peerStep.compacted)
        if (real === undefined || realPeer === undefined) continue
        // compaction.py: its loop's call, and its overflow path while the provider would refuse the request.
        const sum = (messages: ReadonlyArray<Transcript.Message>) => messages.reduce((n, m) => n + tokensOf(m), 0)
        let reply = yield* Effect.promise(() => real.request({ op: "call", end, usage: realUsage ?? null }, summarize))
        let realView = peerReplyView(run, reply, end)
        let changed = reply.changed === true
        while (sum(realView) > contextWindow) {
          const next = yield* Effect.promise(() => real.request({ op: "overflow", end }, summarize))
          if (next.changed !== true) break
          reply = next
          realView = peerReplyView(run, reply, end)
          changed = true
        }
        realPeer.compactions += (reply.compactions ?? 0) - realCounts.compactions
        realPeer.trims += (reply.trims ?? 0) - realCounts.trims
        realPeer.summarizerInput += (reply.summarizerTokens ?? 0) - realCounts.summarizerTokens
        realCounts.compactions = reply.compactions ?? 0
        realCounts.trims = reply.trims ?? 0
        realCounts.summarizerTokens = reply.summarizerTokens ?? 0
        realUsage = sum(realView)
        if (changed) realPeer.afterShares.push(realUsage / peerTriggerOf(contextWindow))
        sentReal = record(realPeer, realView, sentReal, tokensOf, contextWindow, facts, changed)
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
  return { engine, masking, summaryTail, peer, realPeer, requests, ms: elapsedMs(started) }
}

// ---------------------------------------------------------------------------
// The report

const pct = (
  t: Tally,
  kind: FactKind
): number => (t.expected[kind] === 0 ? Number.NaN : (100 * t.present[kind]) / t.expected[kind])
const formatPct = (value: number): string => (Number.isNaN(value) ? "-" : `${value.toFixed(1)}%`)
const ratio = (a: number, b: number): string => (b === 0 ? (a === 0 ? "1.00x" : "-") : `${(a / b).toFixed(2)}x`)
/** A fact's share in a strategy over the peer's, as a ratio ("-" when either has no such fact or the peer kept none). */
const factRatio = (t: Tally, peer: Tally, kind: FactKind): string => {
  const a = pct(t, kind)
  const b = pct(peer, kind)
  return Number.isNaN(a) || Number.isNaN(b) ? "-" : ratio(a, b)
}
/** How far a figure of the model is from compaction.py's, in % of compaction.py's. */
const apart = (model: number, real: number): string =>
  real === 0 ? (model === 0 ? "0.0%" : "-") : `${((100 * (model - real)) / real).toFixed(1)}%`
const within = (model: number, real: number, share: number): boolean =>
  real === 0 ? model === 0 : Math.abs(model - real) <= share * real

const main = async (): Promise<void> => {
  const runs = loadRuns()
  if (runs.length === 0) {
    console.log("session economics: no session to replay")
    return
  }
  const started = now()
  const factsByRun = runs.map(factsOfRun)
  const peerSessions = runs.map(peerSessionOf)
  const factsMs = elapsedMs(started)
  let peerProcess: PeerProcess | undefined
  if (peerPy !== undefined && peerPy !== "") {
    if (Fs.existsSync(peerPy)) {
      peerProcess = startPeerProcess(peerPy)
    } else {
      console.error(
        `session economics: ${peerPy} (CONTEXT_COMPRESSOR_BENCH_PEER_PY) not found; compaction.py not replayed`
      )
    }
  }
  try {
    await report(runs, factsByRun, peerSessions, factsMs, peerProcess)
  } finally {
    peerProcess?.close()
  }
}

const report = async (
  runs: ReadonlyArray<Run>,
  factsByRun: ReadonlyArray<ReadonlyArray<Facts>>,
  peerSessions: ReadonlyArray<PeerSession>,
  factsMs: number,
  peerProcess: PeerProcess | undefined
): Promise<void> => {
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
      "peer = chars/4 of the system prompt and the rendered span its summariser is sent (compaction.py's summarizer_messages); " +
      "summary plus tail = the tokens of the span it summarised"
  )
  if (peerProcess !== undefined) {
    console.log(`the peer's own compaction.py (${peerPy}) is replayed beside the peer model, its summaries the model's`)
  }
  console.log(
    "cost units: 0.1 per cached token, 1.25 per uncached token, per compaction its summariser input at 1.0 and 2,000 output tokens at 5.0"
  )
  console.log(
    "cache breaks: calls without a compaction whose request changed a message already sent; facts: % present over all sampled calls " +
      "(summary plus tail's summary is the offline summariser's, which leaves the first message to the engine's pin)"
  )
  const verdicts: Array<string> = []
  const summaryRows: Array<ReadonlyArray<string>> = []
  const agreement: Array<ReadonlyArray<string>> = []
  const timings: Array<string> = []
  for (const contextWindow of windows) {
    const result = await replayWindow(runs, factsByRun, peerSessions, contextWindow, {
      summaryRequest: "delimited",
      baselines: true,
      ...(peerProcess === undefined ? {} : { peerProcess })
    })
    const shared = sharedPrefix
      ? await replayWindow(runs, factsByRun, peerSessions, contextWindow, {
        summaryRequest: "shared-prefix",
        baselines: false
      })
      : undefined
    const before: Array<{ readonly name: string; readonly tally: Tally }> = []
    for (const lever of withLevers ? levers : []) {
      before.push({
        name: lever.name,
        tally: (await replayWindow(runs, factsByRun, peerSessions, contextWindow, {
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
      ...(result.realPeer === undefined ? [] : [["peer, compaction.py", result.realPeer] as const]),
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
      formatPct(pct(t, "numbers")),
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
        "numbers",
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
    const real = result.realPeer
    if (real !== undefined) {
      const agree = [
        within(peer.compactions, real.compactions, 0.05),
        within(peer.sent, real.sent, 0.05),
        within(costOf(peer), costOf(real), 0.05)
      ].every(Boolean)
      agreement.push([
        formatCount(contextWindow),
        `${formatCount(peer.compactions)} / ${formatCount(real.compactions)}`,
        apart(peer.compactions, real.compactions),
        `${formatCount(peer.trims)} / ${formatCount(real.trims)}`,
        apart(peer.summarizerInput, real.summarizerInput),
        apart(peer.sent, real.sent),
        apart(peer.uncached, real.uncached),
        apart(costOf(peer), costOf(real)),
        ...(["filesWritten", "testCommands", "errorLine", "workingIds", "numbers"] as const).map((kind) =>
          [peer, real].map((t) => formatPct(pct(t, kind)).replace("%", "")).join(" / ")
        ),
        agree ? "yes" : "no"
      ])
      console.log(
        `peer model vs compaction.py: compactions ${apart(peer.compactions, real.compactions)}, tokens sent ${
          apart(peer.sent, real.sent)
        }, cost ${apart(costOf(peer), costOf(real))}${agree ? " (all within 5 %)" : " (not all within 5 %)"}`
      )
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
      ...(["filesWritten", "testCommands", "errorLine", "workingIds", "numbers"] as const).flatMap((kind) => [
        [e, peer, b].map((t) => formatPct(pct(t, kind)).replace("%", "")).join(" / "),
        factRatio(e, peer, kind)
      ])
    ])
  }
  console.log(
    "\nper window (engine ÷ peer model and ÷ summary plus tail; facts: engine / peer / summary plus tail, %, and the engine's share ÷ the peer's):"
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
      "files ÷ peer",
      "test cmds",
      "tests ÷ peer",
      "newest error",
      "error ÷ peer",
      "working ids",
      "ids ÷ peer",
      "numbers",
      "numbers ÷ peer"
    ],
    summaryRows
  )
  if (agreement.length > 0) {
    console.log(
      "\npeer model vs compaction.py (model / compaction.py; apart = (model - compaction.py) ÷ compaction.py; facts %):"
    )
    printTable(
      [
        "window",
        "compactions",
        "apart",
        "trims",
        "summariser in apart",
        "tokens sent apart",
        "uncached apart",
        "cost apart",
        "files",
        "test cmds",
        "newest error",
        "working ids",
        "numbers",
        "within 5 %"
      ],
      agreement
    )
  }
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
    ...(["filesWritten", "testCommands", "errorLine", "workingIds", "numbers"] as const).map((kind) =>
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
  const peerSessions = runs.map(peerSessionOf)
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
    const delimited = await replayWindow(runs, factsByRun, peerSessions, contextWindow, {
      summaryRequest: "delimited",
      baselines: false,
      summarizer
    })
    const shared = await replayWindow(runs, factsByRun, peerSessions, contextWindow, {
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
        "working ids",
        "numbers"
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
