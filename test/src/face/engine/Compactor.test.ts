import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { afterAll, assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as fc from "fast-check"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as TestRuns from "../../../../src/core/working-state/TestRuns.js"
import * as WorkingIds from "../../../../src/core/working-state/WorkingIds.js"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as ViewCheck from "../../../../src/face/engine/ViewCheck.js"
import * as WorkingState from "../../../../src/face/engine/WorkingState.js"
import * as AttentionUnattended from "../../../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../../../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as SummarizerScripted from "../../../../src/face/layers/SummarizerScripted.js"
import * as SummaryCacheMemory from "../../../../src/face/layers/SummaryCacheMemory.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import type { Attention } from "../../../../src/face/services/Attention.js"
import {
  CompactionStore,
  CompactionStore as CompactionStoreService
} from "../../../../src/face/services/CompactionStore.js"
import type { Settings } from "../../../../src/face/services/Settings.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { effectProp } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

const engine = <RS = never, RA = never, RT = never>(options: {
  readonly summarizer?: Layer.Layer<Summarizer.Summarizer | RS>
  readonly attention?: Layer.Layer<Attention | RA>
  readonly settings?: Layer.Layer<Settings | RT>
  readonly store?: Layer.Layer<CompactionStore>
} = {}) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(
      Testing.layer<RS, RA, RT>({
        ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
        ...(options.attention === undefined ? {} : { attention: options.attention }),
        ...(options.store === undefined ? {} : { store: options.store }),
        ...(options.settings === undefined
          ? { settings: { replyReserveTokens: 200 } }
          : { settingsLayer: options.settings })
      })
    )
  )

/** Runs a session: a checkpoint at every turn start, as an agent loop would. */
const runSession = (transcript: Transcript.Transcript, contextWindow: number, sessionId = "s1") =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const results: Array<
      { prefix: Transcript.Transcript; outcome: Compat.Result<Compactor.Checkpoint, Compactor.CompactionError> }
    > = []
    for (const start of [...Boundary.turnStarts(transcript), transcript.length]) {
      const prefix = transcript.slice(0, start)
      if (prefix.length === 0) continue
      const outcome = yield* Compat.result(
        compactor.checkpoint({ sessionId, transcript: prefix, model: "test-model", contextWindow })
      )
      results.push({ prefix, outcome })
    }
    return results
  })

const tokens = (message: Transcript.Message) => TokenizerApprox.count(Transcript.text(message)) + 4

describe("Compactor over generated sessions", () => {
  effectProp(
    "every outbound view passes the invariant check, and the persisted transcript is never modified",
    [Generated.transcript(24), fc.integer({ min: 8_000, max: 24_000 })],
    ([transcript, contextWindow]) =>
      Effect.gen(function*() {
        const before = JSON.stringify(transcript)
        const results = yield* runSession(transcript, contextWindow)
        assert.strictEqual(JSON.stringify(transcript), before)
        const trigger = Budget.trigger(SettingsFixed.settings({ replyReserveTokens: 200 }), contextWindow)
        for (const { outcome, prefix } of results) {
          if (TestCompat.isFailure(outcome)) {
            const error = Option.getOrThrow(TestCompat.getFailure(outcome))
            // The only refusal allowed: a view that cannot fit even when everything older is compacted.
            assert.include(["cannot-fit", "no-progress"], error.reason, error.message)
            continue
          }
          const violations = ViewCheck.check(TestCompat.getOrThrow(outcome).view, {
            firstUserMessage: Transcript.firstUserMessage(prefix),
            fit: {
              trigger,
              replyReserve: Budget.replyReserve(
                SettingsFixed.settings({ replyReserveTokens: 200 }),
                trigger,
                contextWindow
              ),
              tokens
            }
          })
          assert.deepStrictEqual(violations, [])
        }
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 40 } }
  )

  effectProp(
    "repeated compaction keeps the first user message pinned and never moves a pending approval out of the view",
    [Generated.transcript(30)],
    ([transcript]) =>
      Effect.gen(function*() {
        const results = yield* runSession(transcript, 6_000)
        for (const { outcome, prefix } of results) {
          if (TestCompat.isFailure(outcome)) continue
          const view = TestCompat.getOrThrow(outcome).view
          const first = Transcript.firstUserMessage(prefix)!
          const block = view.find((m): m is Transcript.CompactedBlock => m._tag === "Compacted")
          if (block !== undefined) assert.include(block.content, first.content)
          for (const pending of Boundary.pendingApprovals(prefix)) {
            const result = prefix.find((m): m is Transcript.ToolResult =>
              m._tag === "ToolResult" && m.toolCallId === pending.toolCallId
            )!
            // Verbatim, or reduced by the ladder with its approval record byte for byte.
            const approval = JSON.stringify(
              (JSON.parse(result.content) as { data: { approval: unknown } }).data.approval
            )
            const inView = view.find((m): m is Transcript.ToolResult => m._tag === "ToolResult" && m.id === result.id)
            assert.isDefined(inView, `the pending approval ${pending.approvalId} left the view`)
            assert.include(inView!.content, approval)
          }
        }
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 30 } }
  )
})

describe("Compactor working state", () => {
  let compactedSessions = 0
  afterAll(() => {
    // The property is about compacted sessions: most generated ones must compact.
    assert.isAbove(compactedSessions, 10)
  })
  effectProp(
    "over repeated compactions, the persisted working state, extended span by span, equals the state extracted from the whole compacted history",
    [Generated.transcript(30)],
    ([transcript]) =>
      Effect.gen(function*() {
        const results = yield* runSession(transcript, 6_000)
        const store = yield* CompactionStoreService
        const state = yield* store.load("s1")
        if (Option.isNone(state)) return
        compactedSessions++
        const last = results[results.length - 1]!.prefix
        const boundary = last.findIndex((message) => message.id === state.value.boundaryId)
        const compacted = last.slice(1, boundary)
        // What the plan adds to the extraction span by span (the latest test commands, the working ids) is checked on its own.
        const { testCommands, workingIds: _, ...extracted } = state.value.workingState!
        const { testCommands: __, workingIds: ___, ...whole } = WorkingState.extract(compacted)
        assert.deepStrictEqual(extracted, whole)
        assert.deepStrictEqual(testCommands, WorkingIds.testCommands(compacted, TestRuns.isTestCommand))
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 25 } }
  )
})

describe("Compactor working state across compactions", () => {
  it.effect("a script written from a here-document before one compaction and run after it: the next block names the file it opens as edited", () =>
    Effect.gen(function*() {
      const output = (k: number) =>
        `<returncode>0</returncode>\n<output>\n${
          "def handler(request):\n    return respond(request)\n".repeat(40 + k)
        }</output>`
      const transcript = Generated.fromTurns([
        {
          user: "fix the module",
          steps: [[{
            name: "bash",
            args: JSON.stringify({
              command:
                "cat > /tmp/fix.py << 'EOF'\nwith open('./pkg/mod.py') as f:\n    s = f.read()\nwith open('./pkg/mod.py', 'w') as f:\n    f.write(s.replace('old', 'new'))\nEOF"
            }),
            result: "<returncode>0</returncode>"
          }]],
          reply: "Script written.",
          accept: false
        },
        ...Array.from(
          { length: 12 },
          (_, k) => ({
            user: `read part ${k}`,
            steps: [[{ name: "bash", args: JSON.stringify({ command: `cat pkg/part${k}.py` }), result: output(k) }]],
            reply: `Read part ${k}.`,
            accept: false
          })
        ),
        {
          user: "apply it",
          steps: [[{
            name: "bash",
            args: JSON.stringify({ command: "python /tmp/fix.py" }),
            result: "<returncode>0</returncode>"
          }]],
          reply: "Applied.",
          accept: false
        },
        ...Array.from(
          { length: 12 },
          (_, k) => ({
            user: `check part ${k}`,
            steps: [[{
              name: "bash",
              args: JSON.stringify({ command: `git diff -- pkg/mod.py pkg/part${k}.py` }),
              result: output(k)
            }]],
            reply: `Checked ${k}.`,
            accept: false
          })
        )
      ])
      const results = yield* runSession(transcript, 6_000, "scripted")
      const blocks = results.flatMap(({ outcome }) =>
        TestCompat.isSuccess(outcome) && Option.isSome(TestCompat.getOrThrow(outcome).compacted)
          ? [TestCompat.getOrThrow(outcome).view.find((message) => message._tag === "Compacted")!]
          : []
      )
      const ran = transcript.findIndex((message) =>
        message._tag === "Assistant" && message.toolCalls.some((call) => call.arguments.includes("python /tmp/fix.py"))
      )
      const store = yield* CompactionStoreService
      const state = Option.getOrThrow(yield* store.load("scripted"))
      const boundary = transcript.findIndex((message) => message.id === state.boundaryId)
      // The session compacted before the script ran and again after it.
      assert.isAtLeast(blocks.length, 2)
      assert.isAbove(boundary, ran)
      assert.deepInclude(state.workingState!.edits.find((edit) => edit.path === "pkg/mod.py"), {
        action: "edited",
        via: "python /tmp/fix.py"
      })
      assert.match(blocks.at(-1)!.content, /`pkg\/mod\.py` — edited via `python \/tmp\/fix\.py`/)
    }).pipe(Effect.provide(engine())))
})

const longSession = Generated.longSession

const goodSummary = (marker: string) =>
  [
    "## Primary request",
    `Fix the parser cache (${marker}). ` +
    "The user asked for the parser cache to be fixed across the files. ".repeat(4),
    "## Key decisions",
    "Read each file first.",
    "## Files and artifacts",
    "src/file0.ts and the rest.",
    "## Errors and fixes",
    "None.",
    "## User messages",
    "Twelve requests to fix the parser cache.",
    "## Open tasks",
    "None.",
    "## Current work",
    "Reading files.",
    "## Next step",
    "Continue."
  ].join("\n")

const unavailable = new Summarizer.SummarizerError({ reason: "server-error", message: "HTTP 500" })

const checkpointOnce = (contextWindow = 8_000) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    return yield* compactor.checkpoint({ sessionId: "s1", transcript: longSession, model: "test-model", contextWindow })
  })

describe("Compactor.tokensOf", () => {
  effectProp(
    "gives each message the count a checkpoint uses: the view's counts add up to the checkpoint's tokens, and each is its text's tokens and the overhead",
    [Generated.transcript(16), fc.integer({ min: 8_000, max: 24_000 })],
    ([transcript, contextWindow]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const checkpoint = yield* compactor.checkpoint({
          sessionId: "counts",
          transcript,
          model: "test-model",
          contextWindow
        })
        assert.strictEqual(
          checkpoint.view.reduce((sum, message) => sum + compactor.tokensOf(message), 0),
          checkpoint.tokens
        )
        for (const message of [...transcript, ...checkpoint.view]) {
          assert.strictEqual(compactor.tokensOf(message), tokens(message))
        }
        // A message it never saw is counted the same way.
        const fresh = new Transcript.UserMessage({ id: "fresh", content: "a message no checkpoint has seen" })
        assert.strictEqual(compactor.tokensOf(fresh), tokens(fresh))
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 25 } }
  )
})

describe("Compactor failure policy (SPEC R2.7)", () => {
  it.effect("a summariser that fails twice gets exactly one retry, then an unattended session trims", () =>
    Effect.gen(function*() {
      const result = yield* checkpointOnce()
      const report = Option.getOrThrow(result.compacted)
      assert.strictEqual(report.fallback, "trim")
      assert.strictEqual(report.summarizerCalls, 2)
      assert.strictEqual(yield* (yield* SummarizerScripted.ScriptedSummarizer).calls, 2)
      const block = result.view.find((m) => m._tag === "Compacted")!
      assert.include(block.content, "[No summary: the summariser failed (server-error")
    }).pipe(
      Effect.provide(engine({ summarizer: SummarizerScripted.layer([unavailable, unavailable, goodSummary("never")]) }))
    ))

  effectProp(
    "a compaction logs one warning through Effect's logger exactly when it falls back to a trim, naming the reason and the gate's verdicts; the report's fallbackReason is the same reason",
    [fc.array(fc.constantFrom("unavailable", "too-short", "good"), { minLength: 2, maxLength: 2 })],
    ([replies]) =>
      Effect.gen(function*() {
        const warnings: Array<string> = []
        const capture = Logger.make(({ logLevel, message }) => {
          if (TestCompat.isWarning(logLevel)) {
            warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
          }
        })
        const result = yield* checkpointOnce().pipe(Effect.provide(TestCompat.replaceLogger(capture)))
        const report = Option.getOrThrow(result.compacted)
        const expectTrim = replies.every((reply) => reply !== "good")
        assert.strictEqual(report.fallback, expectTrim ? "trim" : "none")
        const trims = warnings.filter((warning) => warning.includes("fell back to a trim"))
        if (!expectTrim) {
          assert.deepStrictEqual(trims, [])
          assert.isUndefined(report.fallbackReason)
          return
        }
        assert.strictEqual(trims.length, 1, warnings.join("\n"))
        const reason = replies[1] === "unavailable"
          ? /^the summariser failed \(server-error: HTTP 500\)$/
          : /^the summary was refused by the quality gate \(too-short: /
        assert.match(report.fallbackReason ?? "", reason)
        assert.strictEqual(
          trims[0],
          `compaction 1 of session s1 fell back to a trim: ${report.fallbackReason} (gate: ${report.gate.join(", ")})`
        )
        assert.deepStrictEqual(
          report.gate,
          replies.map((reply) => (reply === "unavailable" ? "summarizer: server-error" : "too-short"))
        )
      }).pipe(
        Effect.provide(engine({
          summarizer: SummarizerScripted.layer(
            replies.map((reply) =>
              reply === "unavailable" ? unavailable : reply === "too-short" ? "too short" : goodSummary("good")
            )
          )
        }))
      ),
    { fastCheck: { numRuns: 9 } }
  )

  it.effect("an attended session is asked after the retry, and its Trim is followed", () =>
    Effect.gen(function*() {
      const result = yield* checkpointOnce()
      assert.strictEqual(Option.getOrThrow(result.compacted).fallback, "trim")
      assert.strictEqual(yield* (yield* SummarizerScripted.ScriptedSummarizer).calls, 2)
      const problems = yield* (yield* AttentionUnattended.ScriptedAttention).problems
      assert.strictEqual(problems.length, 1)
      assert.include(problems[0]!, "server-error")
    }).pipe(
      Effect.provide(
        engine({
          summarizer: SummarizerScripted.layer([unavailable, unavailable, goodSummary("never")]),
          attention: AttentionUnattended.layerScripted(["trim"])
        })
      )
    ))

  it.effect("an attended Retry calls the summariser again and uses the summary that passes the gate", () =>
    Effect.gen(function*() {
      const result = yield* checkpointOnce()
      const report = Option.getOrThrow(result.compacted)
      assert.strictEqual(report.fallback, "none")
      assert.strictEqual(report.summarizerCalls, 3)
      assert.deepStrictEqual(report.gate, ["summarizer: server-error", "too-short", "passed"])
      assert.include(result.view.find((m) => m._tag === "Compacted")!.content, "third-time")
    }).pipe(
      Effect.provide(
        engine({
          summarizer: SummarizerScripted.layer([unavailable, "too short", goodSummary("third-time")]),
          attention: AttentionUnattended.layerScripted(["retry"])
        })
      )
    ))

  it.effect("a context overflow that persists ends in a typed error, not a loop", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      let calls = 0
      let outcome: Compat.Result<Compactor.Checkpoint, Compactor.CompactionError> = Compat.Result.succeed(
        {} as Compactor.Checkpoint
      )
      // The main model keeps refusing the view as too long.
      while (TestCompat.isSuccess(outcome) && calls < 100) {
        calls++
        outcome = yield* Compat.result(
          compactor.contextOverflow({
            sessionId: "s1",
            transcript: longSession,
            model: "test-model",
            contextWindow: 200_000
          })
        )
      }
      assert.isTrue(TestCompat.isFailure(outcome))
      assert.strictEqual(Option.getOrThrow(TestCompat.getFailure(outcome)).reason, "no-progress")
      assert.isBelow(calls, longSession.length)
    }).pipe(Effect.provide(engine())))
})

describe("Compactor summary cache (SPEC R2.10)", () => {
  it.effect("an identical request is answered from the cache, not the summariser", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const first = yield* compactor.checkpoint({
        sessionId: "a",
        transcript: longSession,
        model: "test-model",
        contextWindow: 8_000
      })
      const second = yield* compactor.checkpoint({
        sessionId: "b",
        transcript: longSession,
        model: "test-model",
        contextWindow: 8_000
      })
      assert.isFalse(Option.getOrThrow(first.compacted).cacheHit)
      assert.isTrue(Option.getOrThrow(second.compacted).cacheHit)
      assert.strictEqual(yield* (yield* SummarizerScripted.ScriptedSummarizer).calls, 1)
      const stats = yield* (yield* SummaryCacheMemory.MemoryCache).stats
      assert.deepStrictEqual([stats.hits, stats.entries], [1, 1])
    }).pipe(Effect.provide(engine({ summarizer: SummarizerScripted.layer([goodSummary("cached")]) }))))

  it.effect("another summariser model misses the cache", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      yield* compactor.checkpoint({ sessionId: "a", transcript: longSession, model: "model-a", contextWindow: 8_000 })
      const second = yield* compactor.checkpoint({
        sessionId: "b",
        transcript: longSession,
        model: "model-b",
        contextWindow: 8_000
      })
      assert.isFalse(Option.getOrThrow(second.compacted).cacheHit)
      assert.strictEqual(yield* (yield* SummarizerScripted.ScriptedSummarizer).calls, 2)
    }).pipe(Effect.provide(engine({ summarizer: SummarizerScripted.layer([goodSummary("a"), goodSummary("b")]) }))))
})

describe("Compactor summariser input", () => {
  // 200 turns of about 700 characters each: far more than a request in a 20,000-token window may hold.
  const history = Generated.fromTurns(
    Array.from({ length: 200 }, (_, i) => ({
      user: `step ${i}: run the next migration batch`,
      steps: [[{
        name: "bash",
        args: JSON.stringify({ command: `./migrate --batch ${i} > logs/batch${i}.log` }),
        result: `<returncode>0</returncode>\n<output>\nrun_batch${i}x: ${"migrated rows ".repeat(40)}</output>`
      }]],
      reply: `Batch ${i} is done.`,
      accept: false
    }))
  )

  it.effect("a history longer than the summariser's input budget sends its newest messages, and the block still covers the ids of the rest", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const result = yield* compactor.checkpoint({
        sessionId: "long",
        transcript: history,
        model: "m",
        contextWindow: 20_000
      })
      const report = Option.getOrThrow(result.compacted)
      const [request] = yield* (yield* SummarizerScripted.ScriptedSummarizer).requests
      const settings = SettingsFixed.settings({ replyReserveTokens: 200 })
      const budget = Budget.summaryInputChars(settings, Budget.trigger(settings, 20_000))
      const open = request!.prompt.indexOf(`\n<transcript>\n`)
      const close = request!.prompt.indexOf(`\n</transcript>\n`)
      const note = request!.prompt.match(/\[(\d+) older message\(s\) of this span, ids (\S+) /)
      assert.isNotNull(note)
      // The shown span fits the budget, with the note and the always-shown first user message beside it.
      assert.isAtMost(close - open, budget + 1_000)
      assert.include(request!.prompt, `id="${history[1]!.id}"`)
      assert.include(request!.prompt, `id="${history[report.boundary.index - 1]!.id}"`)
      assert.notInclude(request!.prompt, "run_batch3x")
      // The working state was extracted from the whole span: the omitted batches' ids ride in the block.
      const block = result.view.find((message) => message._tag === "Compacted")!
      assert.include(block.content, "run_batch3x")
      assert.strictEqual(report.fallback, "none")
    }).pipe(Effect.provide(engine({ summarizer: SummarizerScripted.layer([goodSummary("long")]) }))))
})

describe("Compactor state and events", () => {
  it.effect("a reload rebuilds the same outbound view from the persisted state", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const compacted = yield* compactor.checkpoint({
        sessionId: "s1",
        transcript: longSession,
        model: "m",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isSome(compacted.compacted))
      const reloaded = yield* compactor.checkpoint({
        sessionId: "s1",
        transcript: longSession,
        model: "m",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isNone(reloaded.compacted))
      assert.strictEqual(JSON.stringify(reloaded.view), JSON.stringify(compacted.view))
    }).pipe(Effect.provide(engine())))

  it.effect("a settings change is read at the next checkpoint", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const control = yield* SettingsFixed.SettingsControl
      const input = { sessionId: "s1", transcript: longSession, model: "m", contextWindow: 100_000 }
      const relaxed = yield* compactor.checkpoint(input)
      assert.isTrue(Option.isNone(relaxed.compacted))
      yield* control.set({ triggerPct: 10 })
      const tightened = yield* compactor.checkpoint(input)
      assert.strictEqual(tightened.trigger, 10_000)
      assert.isTrue(Option.isSome(tightened.compacted))
    }).pipe(Effect.provide(engine({ settings: SettingsFixed.layerRef }))))

  it.scoped("every compaction is published as a Compacted event with its report", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const events = yield* compactor.subscribe
      const result = yield* compactor.checkpoint({
        sessionId: "s1",
        transcript: longSession,
        model: "m",
        contextWindow: 8_000
      })
      const event = yield* TestCompat.take(events)
      assert.deepStrictEqual(event, Option.getOrThrow(result.compacted))
      assert.isBelow(event.tokensAfter, event.tokensBefore)
      assert.strictEqual(event.boundary.id, longSession[event.boundary.index]!.id)
      assert.strictEqual(event.gate[0], "passed")
      assert.isAbove(event.rules["clipped"] ?? 0, 0)
    }).pipe(Effect.provide(engine())))
})

describe("Compactor block contents", () => {
  it.effect("ids and paths the accepted summary does not mention are reported, and stated once in the block: in the working state, not listed again (fact check)", () =>
    Effect.gen(function*() {
      const result = yield* checkpointOnce()
      const report = Option.getOrThrow(result.compacted)
      assert.strictEqual(report.fallback, "none")
      assert.include(report.missingFromSummary, "job_00000000")
      const block = result.view.find((m) => m._tag === "Compacted")!
      const workingState = block.content.slice(block.content.indexOf("## Working state"))
      assert.include(workingState.slice(workingState.indexOf("### Protected ids")), "job_00000000")
      assert.notInclude(
        block.content.slice(block.content.indexOf("### Not mentioned by the summary") >>> 0),
        "- job_00000000"
      )
      assert.notInclude(report.missingFromSummary, "src/file0.ts", "the summary names src/file0.ts")
    }).pipe(Effect.provide(engine({ summarizer: SummarizerScripted.layer([goodSummary("ids")]) }))))

  it.effect("the block says which messages it replaces and where they are kept verbatim", () =>
    Effect.gen(function*() {
      const result = yield* checkpointOnce()
      const report = Option.getOrThrow(result.compacted)
      const block = result.view.find((m): m is Transcript.CompactedBlock => m._tag === "Compacted")!
      assert.include(block.content, `messages ${report.replaced.firstId} to ${report.replaced.lastId}`)
      assert.include(block.content, "The session's transcript keeps them verbatim")
      assert.strictEqual(block.firstReplacedId, "m1")
    }).pipe(Effect.provide(engine())))

  it.effect("a first user message past 4,000 tokens is pinned clipped to that cap, head and tail", () =>
    Effect.gen(function*() {
      const mandate = "MANDATE-START " + "write the migration and keep the ids stable. ".repeat(1_000) + " MANDATE-END"
      const transcript = [new Transcript.UserMessage({ id: "u0", content: mandate }), ...longSession.slice(2)]
      const compactor = yield* Compactor.Compactor
      const result = yield* compactor.checkpoint({ sessionId: "big", transcript, model: "m", contextWindow: 40_000 })
      const block = result.view.find((m) => m._tag === "Compacted")!
      const pinned = block.content.slice(
        block.content.indexOf("pinned)"),
        block.content.indexOf("## Summary of the compacted span")
      )
      assert.isAtMost(TokenizerApprox.count(pinned), Budget.pinnedMessageTokens + 50)
      assert.include(pinned, "MANDATE-START")
      assert.include(pinned, "MANDATE-END")
      assert.include(pinned, "characters omitted")
    }).pipe(Effect.provide(engine())))

  it.effect("a staged approval awaiting /accept stays verbatim after the block until it is answered", () =>
    Effect.gen(function*() {
      const staged = Generated.fromTurns([
        {
          user: "stage the edit",
          steps: [[
            {
              name: "bash",
              args: JSON.stringify({ command: "ls" }),
              result: "<returncode>0</returncode>\n<output>\nsrc\n</output>"
            },
            {
              name: "workspace_edit",
              args: JSON.stringify({ action: "stage" }),
              approvalId: "approval_0000beef",
              result: JSON.stringify({
                protocol: "agentic-workspace/v1",
                tool: "workspace_edit",
                action: "stage",
                ok: true,
                data: {
                  status: "pending_approval",
                  mode: "ask",
                  approval: {
                    id: "approval_0000beef",
                    kind: "transaction",
                    title: "Commit",
                    destructive: false,
                    resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: "tx_0000beef" } }
                  }
                }
              })
            }
          ]],
          reply: "waiting for approval",
          accept: false
        }
      ])
      const later = [...staged, ...longSession.slice(1).map((m) => relabel(m, "L"))]
      const compactor = yield* Compactor.Compactor
      const result = yield* compactor.checkpoint({
        sessionId: "approval",
        transcript: later,
        model: "m",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isSome(result.compacted))
      const resultMessage = staged.find((m) => m._tag === "ToolResult" && m.content.includes("approval_0000beef"))!
      assert.isTrue(result.view.includes(resultMessage), "the staged approval's result left the view")
      const call = result.view.find((m) =>
        m._tag === "Assistant" && m.toolCalls.some((c) => c.id === (resultMessage as Transcript.ToolResult).toolCallId)
      )
      assert.isDefined(call)
      assert.strictEqual(
        (call as Transcript.AssistantMessage).toolCalls.length,
        1,
        "only the pending call is pinned with its result"
      )
      assert.deepStrictEqual(ViewCheck.check(result.view), [])

      const answered = [
        ...later,
        new Transcript.UserMessage({ id: "ack", content: "/accept approval_0000beef" }),
        ...longSession.slice(1).map((m) => relabel(m, "R"))
      ]
      const next = yield* compactor.checkpoint({
        sessionId: "approval",
        transcript: answered,
        model: "m",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isSome(next.compacted))
      assert.isFalse(next.view.includes(resultMessage), "an answered approval is summarised like the rest")
    }).pipe(Effect.provide(engine())))

  it.effect("a store that cannot be read gives a typed error, not a crash", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const outcome = yield* Compat.result(
        compactor.checkpoint({ sessionId: "s", transcript: longSession, model: "m", contextWindow: 8_000 })
      )
      assert.isTrue(TestCompat.isFailure(outcome))
      const error = Option.getOrThrow(TestCompat.getFailure(outcome))
      assert.strictEqual(error.reason, "store")
      assert.include(error.message, "disk full")
    }).pipe(Effect.provide(engine({ store: CompactionStoreMemory.layerFailing("disk full") }))))
})

/** The same message under a new id (and new call ids), to append a copy of a session. */
function relabel(message: Transcript.Message, tag: string): Transcript.Message {
  switch (message._tag) {
    case "Assistant":
      return new Transcript.AssistantMessage({
        ...message,
        id: `${tag}${message.id}`,
        toolCalls: message.toolCalls.map((c) => new Transcript.ToolCall({ ...c, id: `${tag}${c.id}` }))
      })
    case "ToolResult":
      return new Transcript.ToolResult({
        ...message,
        id: `${tag}${message.id}`,
        toolCallId: `${tag}${message.toolCallId}`
      })
    case "User":
      return new Transcript.UserMessage({ ...message, id: `${tag}${message.id}` })
    default:
      return message
  }
}

describe("Compactor with concurrent workers", () => {
  const input = (sessionId: string, transcript: Transcript.Transcript = longSession) => ({
    sessionId,
    transcript,
    model: "test-model",
    contextWindow: 8_000
  })

  /**
   * The offline summariser behind a gate: each call counts, then waits until
   * `parties` calls are waiting (or, with `release`, until it is opened), so
   * every worker has loaded the state before any of them saves.
   */
  const gatedSummarizer = (options: { readonly parties?: number; readonly release?: Deferred.Deferred<void> }) =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const open = options.release ?? (yield* Deferred.make<void>())
      const offline = yield* Effect.provide(Summarizer.Summarizer, SummarizerOffline.layer)
      const summarizer: Summarizer.Service = {
        summarize: (request) =>
          Effect.gen(function*() {
            const waiting = yield* Ref.updateAndGet(calls, (n) => n + 1)
            if (options.parties !== undefined && waiting >= options.parties) yield* Deferred.succeed(open, undefined)
            yield* Deferred.await(open)
            return yield* offline.summarize(request)
          })
      }
      return { summarizer, calls: Ref.get(calls) }
    })

  /** `count` engines over one memory store and cache, each with its own in-flight summaries, as separate workers would be. */
  const engines = (count: number, summarizer: Summarizer.Service) =>
    Effect.gen(function*() {
      // Never pausing: a fiber found suspended is waiting for the summariser or for another's summary, not giving the event loop a turn.
      const made = yield* Effect.forEach(Array.from({ length: count }), () =>
        Compactor.make({ policies: builtInPolicies, sliceMs: Number.POSITIVE_INFINITY }))
      return { engines: made, store: yield* CompactionStoreService }
    }).pipe(
      Effect.provide(
        Testing.layer({
          summarizer: Layer.succeed(Summarizer.Summarizer, summarizer),
          settings: { replyReserveTokens: 200 }
        })
      )
    )

  /** Waits until every fiber is suspended: each is waiting for the summariser or for another's summary. */
  const allSuspended = TestCompat.allSuspended

  it.effect("two workers compacting one session at once save one compaction; the loser rebuilds its view from the winner's state", () =>
    Effect.gen(function*() {
      const { calls, summarizer } = yield* gatedSummarizer({ parties: 2 })
      const { engines: [a, b], store } = yield* engines(2, summarizer)
      const results = yield* Effect.all([a!.checkpoint(input("s1")), b!.checkpoint(input("s1"))], {
        concurrency: "unbounded"
      })
      assert.strictEqual(yield* calls, 2, "both loaded the state before either saved")
      const reports = results.flatMap((result) => Option.toArray(result.compacted))
      assert.strictEqual(reports.length, 1, "one of them reports the compaction, the other reuses it")
      const state = Option.getOrThrow(yield* store.load("s1"))
      assert.strictEqual(state.compactions, 1)
      assert.strictEqual(state.block.id, "compacted-1")
      assert.strictEqual(
        JSON.stringify(results[0]!.view),
        JSON.stringify(results[1]!.view),
        "both views are the winner's"
      )
      assert.isTrue(
        results.every((result) =>
          result.view.some((message) =>
            message === state.block || (message._tag === "Compacted" && message.content === state.block.content)
          )
        )
      )
      const next = yield* a!.checkpoint(input("s1"))
      assert.isTrue(Option.isNone(next.compacted), "the saved state serves the next checkpoint of either")
    }))

  effectProp(
    "workers racing over the checkpoints of one session: the state's compactions equal the compactions reported, each saved over the one before",
    [
      fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 2, maxLength: 4 }),
      fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 16 })
    ],
    ([skews, yields]) =>
      Effect.gen(function*() {
        let call = 0
        const offline = yield* Effect.provide(Summarizer.Summarizer, SummarizerOffline.layer)
        // Each call gives way a generated number of times: the workers interleave differently in every run.
        const summarizer: Summarizer.Service = {
          summarize: (request) =>
            Effect.andThen(
              // Once and the generated number of times again, as Effect 3's repeatN (which Effect 4 lacks) gave way.
              Effect.replicateEffect(Compat.yieldNow, yields[call++ % yields.length]! + 1, { discard: true }),
              offline.summarize(request)
            )
        }
        const { engines: made, store } = yield* engines(skews.length, summarizer)
        const starts = [...Boundary.turnStarts(longSession).slice(1), longSession.length]
        const reports: Array<Compactor.Compacted> = []
        // Round by round, every worker checkpoints the session at once, some a turn ahead of the others.
        for (let round = 0; round < starts.length; round++) {
          const results = yield* Effect.forEach(
            made,
            (engine, worker) =>
              engine.checkpoint(
                input("s1", longSession.slice(0, starts[Math.min(round + skews[worker]!, starts.length - 1)]))
              ),
            { concurrency: "unbounded" }
          )
          reports.push(...results.flatMap((result) => Option.toArray(result.compacted)))
        }
        const state = Option.getOrThrow(yield* store.load("s1"))
        assert.isAbove(reports.length, 1)
        assert.strictEqual(state.compactions, reports.length)
        assert.strictEqual(state.block.id, `compacted-${state.compactions}`)
        assert.deepStrictEqual(
          reports.map((report) => report.compactions).sort((x, y) => x - y),
          Array.from({ length: reports.length }, (_, i) => i + 1),
          "no count saved twice, none skipped"
        )
      }),
    { fastCheck: { numRuns: 25 } }
  )

  // Skipped on Effect 4: its fibers have no status (no Fiber.status), so allSuspended cannot tell a fiber
  // waiting on a Deferred from one about to run.
  it.effect.skipIf(TestCompat.major === 4)(
    "concurrent checkpoints of identical sessions ask the summariser once; the others share its summary",
    () =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        const { calls, summarizer } = yield* gatedSummarizer({ release })
        const { engines: [engine], store } = yield* engines(1, summarizer)
        const sessions = Array.from({ length: 6 }, (_, i) => `copy-${i}`)
        const fibers = yield* Effect.forEach(sessions, (sessionId) =>
          TestCompat.forkChild(engine!.checkpoint(input(sessionId))))
        yield* allSuspended(fibers)
        yield* Deferred.succeed(release, undefined)
        const results = yield* Fiber.joinAll(fibers)
        assert.strictEqual(yield* calls, 1)
        const reports = results.map((result) =>
          Option.getOrThrow(result.compacted)
        )
        assert.deepStrictEqual(reports.map((report) => report.summarizerCalls).sort(), [0, 0, 0, 0, 0, 1])
        assert.deepStrictEqual(reports.map((report) => report.cacheHit).sort(), [false, true, true, true, true, true])
        for (const sessionId of sessions) {
          assert.strictEqual(Option.getOrThrow(yield* store.load(sessionId)).compactions, 1)
        }
        assert.strictEqual(new Set(results.map((result) => JSON.stringify(result.view))).size, 1)
      })
  )

  // Skipped on Effect 4: its fibers have no status (no Fiber.status), so allSuspended cannot tell a fiber
  // waiting on a Deferred from one about to run.
  it.effect.skipIf(TestCompat.major === 4)(
    "concurrent checkpoints of one session call the summariser once and save one compaction",
    () =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        const { calls, summarizer } = yield* gatedSummarizer({ release })
        const { engines: [engine], store } = yield* engines(1, summarizer)
        const fibers = yield* Effect.forEach(
          Array.from({ length: 5 }),
          () => TestCompat.forkChild(engine!.checkpoint(input("s1")))
        )
        yield* allSuspended(fibers)
        yield* Deferred.succeed(release, undefined)
        const results = yield* Fiber.joinAll(fibers)
        assert.strictEqual(yield* calls, 1)
        assert.strictEqual(results.filter((result) => Option.isSome(result.compacted)).length, 1)
        assert.strictEqual(Option.getOrThrow(yield* store.load("s1")).compactions, 1)
        assert.strictEqual(new Set(results.map((result) => JSON.stringify(result.view))).size, 1)
      })
  )

  // Skipped on Effect 4: its fibers have no status (no Fiber.status), so allSuspended cannot tell a fiber
  // waiting on a Deferred from one about to run.
  it.effect.skipIf(TestCompat.major === 4)(
    "one engine runs the checkpoints of one session one at a time, while another session's runs at once",
    () =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        const { calls, summarizer } = yield* gatedSummarizer({ release })
        // The store notes each load of a state: a checkpoint loads its session's state when it starts.
        const loads: Array<string> = []
        const store = Layer.effect(
          CompactionStoreService,
          Effect.map(CompactionStoreMemory.make, (context) => {
            const inner = Context.get(context, CompactionStoreService)
            return {
              ...inner,
              load: (sessionId: string) =>
                Effect.andThen(Effect.sync(() => loads.push(sessionId)), inner.load(sessionId))
            }
          })
        )
        const engine = yield* Compactor.make({ policies: builtInPolicies, sliceMs: Number.POSITIVE_INFINITY }).pipe(
          Effect.provide(
            Testing.layer({
              summarizer: Layer.succeed(Summarizer.Summarizer, summarizer),
              store,
              settings: { replyReserveTokens: 200 }
            })
          )
        )
        // Another session, whose summary is not the first one's (no summary shared in flight).
        const other = longSession.map((message, index) =>
          index === longSession.findIndex((m) => m._tag === "User")
            ? new Transcript.UserMessage({
              ...(message as Transcript.UserMessage),
              content: `${Transcript.text(message)} (another session)`
            })
            : message
        )
        const first = yield* TestCompat.forkChild(engine.checkpoint(input("s1")))
        yield* allSuspended([first])
        const second = yield* TestCompat.forkChild(engine.checkpoint(input("s1")))
        const elsewhere = yield* TestCompat.forkChild(engine.checkpoint(input("s2", other)))
        yield* allSuspended([first, second, elsewhere])
        assert.strictEqual(yield* calls, 2, "the other session reached its summariser while the first held its own")
        assert.deepStrictEqual(
          loads,
          ["s1", "s2"],
          "the second checkpoint of s1 waits for the first before it loads anything"
        )
        yield* Deferred.succeed(release, undefined)
        const [one, two, three] = [yield* Fiber.join(first), yield* Fiber.join(second), yield* Fiber.join(elsewhere)]
        assert.deepStrictEqual(loads.filter((sessionId) => sessionId === "s1").length, 2)
        assert.isTrue(Option.isSome(one.compacted) && Option.isSome(three.compacted))
        // The second ran over the first's saved state: the same view, no compaction of its own, no lost save.
        assert.isTrue(Option.isNone(two.compacted))
        assert.strictEqual(JSON.stringify(two.view), JSON.stringify(one.view))
        assert.strictEqual(yield* calls, 2)
      })
  )

  // Skipped on Effect 4: its fibers have no status (no Fiber.status), so allSuspended cannot tell a fiber
  // waiting on a Deferred from one about to run.
  it.effect.skipIf(TestCompat.major === 4)(
    "a checkpoint waiting for a summary whose maker is interrupted makes it itself",
    () =>
      Effect.gen(function*() {
        const release = yield* Deferred.make<void>()
        const { calls, summarizer } = yield* gatedSummarizer({ release })
        const { engines: [engine] } = yield* engines(1, summarizer)
        const maker = yield* TestCompat.forkChild(engine!.checkpoint(input("a")))
        yield* allSuspended([maker])
        const waiter = yield* TestCompat.forkChild(engine!.checkpoint(input("b")))
        yield* allSuspended([maker, waiter])
        assert.strictEqual(yield* calls, 1)
        yield* Fiber.interrupt(maker)
        yield* allSuspended([waiter])
        assert.strictEqual(yield* calls, 2, "the waiter asked the summariser itself")
        yield* Deferred.succeed(release, undefined)
        const report = Option.getOrThrow((yield* Fiber.join(waiter)).compacted)
        assert.strictEqual(report.summarizerCalls, 1)
        assert.isFalse(report.cacheHit)
      })
  )
})
