/**
 * The root entry's modules that the Effect 4 face compiles from the same source as Effect 3
 * (docs/effect4.md, "One source"): `Overflow`, `Envelope`, `OptionalPackage`, `Budget`, `Session` and
 * `Recall`, run on effect 4. The expected values were printed by the same calls on Effect 3.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Budget, Envelope, OptionalPackage, Overflow, Recall, Session, Transcript } from "../../src/effect4/index.js"
import { Settings, TranscriptArchive } from "../../src/effect4/services/index.js"
import * as TranscriptArchiveMemory from "../../src/face/layers/TranscriptArchiveMemory.js"

describe("the root entry's modules on Effect 4", () => {
  it("Overflow classifies a provider's overflow answer and nothing else", () => {
    const found = Overflow.classify({
      error: {
        message:
          "This model's maximum context length is 16000 tokens. However, your messages resulted in 40123 tokens.",
        code: "context_length_exceeded"
      }
    })
    assert.ok(Option.isSome(found))
    assert.strictEqual(found.value.provider, "openai")
    assert.strictEqual(found.value.limit, 16000)
    assert.strictEqual(found.value.promptTokens, 40123)
    assert.strictEqual(Overflow.isContextOverflow("Rate limit reached for requests"), false)
  })

  it("Envelope tells an agentic-workspace/v1 envelope, extra keys included, from other values", () => {
    const envelope = { protocol: Envelope.protocol, tool: "shell", action: "run", ok: true, extra: [1, 2] }
    assert.strictEqual(Envelope.isEnvelope(envelope), true)
    assert.strictEqual(Envelope.isEnvelope({ ...envelope, protocol: "other/v1" }), false)
    assert.strictEqual(Envelope.isEnvelope({ tool: "shell" }), false)
  })

  it("OptionalPackage.load fails with MissingPackageError, in one line, for a package that is not installed", async () => {
    const exit = await Effect.runPromiseExit(
      OptionalPackage.load("not-a-package-of-this-app", "the test", () => import("not-a-package-of-this-app" as string))
    )
    assert.ok(Exit.isFailure(exit))
    const error = Option.getOrThrow(Exit.findErrorOption(exit))
    assert.ok(error instanceof OptionalPackage.MissingPackageError)
    assert.strictEqual(error.packageName, "not-a-package-of-this-app")
    assert.strictEqual(
      error.message,
      "the test needs the package not-a-package-of-this-app, which is not installed: npm install not-a-package-of-this-app"
    )
  })

  it("Budget's arithmetic over the default settings: the trigger, the keep and block budgets, when to compact", () => {
    const settings = Settings.defaults
    const trigger = Budget.trigger(settings, 200_000)
    assert.strictEqual(trigger, 160_000)
    assert.strictEqual(Budget.trigger(settings, 1_000_000), 250_000)
    assert.strictEqual(Budget.keepBudget(settings, trigger), 48_000)
    assert.strictEqual(Budget.replyReserve(settings, trigger), 4_096)
    assert.strictEqual(Budget.needsCompaction(158_000, trigger, settings), true)
    assert.strictEqual(Budget.needsCompaction(150_000, trigger, settings), false)
    assert.strictEqual(Budget.targetAfter(settings, trigger), 80_000)
    assert.strictEqual(Budget.blockBudget(settings, trigger), 48_000)
    assert.strictEqual(Budget.userMessageBudget(trigger), 12_800)
    assert.strictEqual(Budget.workingStateBudget(trigger), 12_800)
    assert.strictEqual(Budget.summaryInputChars(settings, trigger), 432_000)
  })

  it("Session ids: the id of a history up to its first user message, and a caller's scoped ids", () => {
    const history = [
      new Transcript.SystemMessage({ id: "s0", content: "You are a coding agent." }),
      new Transcript.UserMessage({ id: "u1", content: "Fix the parser." }),
      new Transcript.AssistantMessage({ id: "a1", content: "On it.", toolCalls: [] })
    ]
    assert.strictEqual(Session.idOf(history), "session-87c993bc8a61a7d9")
    assert.strictEqual(Session.idOf(history.slice(0, 2)), "session-87c993bc8a61a7d9")
    const caller = Session.callerOf([["authorization", "Bearer k1"]])
    assert.strictEqual(caller, "401a85954b0d1475d6a5de9472cacc36")
    assert.strictEqual(Session.scoped(caller, "session-x"), `session-x.caller-${caller}`)
    assert.strictEqual(Session.scoped(undefined, "session-x"), "session-x")
    assert.strictEqual(Session.belongsTo(caller, Session.scoped(caller, "session-x")), true)
    assert.strictEqual(Session.belongsTo(undefined, Session.scoped(caller, "session-x")), false)
  })

  it("Recall reads an archived message back by handle, a page at a time, over the memory archive", async () => {
    const result = new Transcript.ToolResult({
      id: "r1",
      toolCallId: "c1",
      name: "bash",
      content: "FAIL tests/test_parser.py\n".repeat(40)
    })
    const handle = Recall.handleOf("s1", result.content)
    assert.strictEqual(handle, "ctx_kkyvdgdD0cAa")
    const program = Effect.gen(function*() {
      const archive = yield* TranscriptArchive.TranscriptArchive
      yield* archive.write({ sessionId: "s1", compaction: 1, messages: [result] })
      const page = yield* Recall.recall({ sessionId: "s1", handle, length: 100 })
      const answers = [
        yield* Recall.answer("s1", JSON.stringify({ handle, offset: 100, length: 50 })),
        yield* Recall.answer("s2", { handle }),
        yield* Recall.answer("s1", { handle, offset: -1 }),
        yield* Recall.answer("s1", "{")
      ]
      return { page, answers }
    })
    const { answers, page } = await Effect.runPromise(Effect.provide(program, TranscriptArchiveMemory.layer()))
    assert.ok(page instanceof Recall.Page)
    assert.strictEqual(page.messageId, "r1")
    assert.strictEqual(page.total, 1040)
    assert.strictEqual(page.nextOffset, 100)
    assert.strictEqual(page.text, result.content.slice(0, 100))
    assert.deepStrictEqual(answers, [
      `[${handle}, message r1: characters 100 to 150 of 1040; more from offset 150]\n${result.content.slice(100, 150)}`,
      `context_recall failed (other-session): ${handle} is not a handle of this session`,
      "context_recall failed: the arguments need a string handle, and whole numbers for offset and length",
      "context_recall failed: its arguments are not JSON"
    ])
  })

  it("Recall says why nothing came back: no archive to read, a handle the archive lacks, a failing archive", async () => {
    const handle = Recall.handleOf("s1", "x")
    const none = await Effect.runPromise(Effect.flip(Recall.recall({ sessionId: "s1", handle })))
    assert.ok(none instanceof Recall.RecallError)
    assert.strictEqual(none.reason, "no-archive")
    const failing = Layer.succeed(
      TranscriptArchive.TranscriptArchive,
      TranscriptArchive.TranscriptArchive.of({
        locate: () => "nowhere",
        write: () => Effect.succeed("nowhere"),
        lookup: (sessionId) =>
          Effect.fail(new TranscriptArchive.ArchiveError({ sessionId, path: "nowhere", reason: "disk gone" }))
      })
    )
    assert.strictEqual(
      await Effect.runPromise(Effect.provide(Recall.answer("s1", { handle }), failing)),
      "context_recall failed (unreadable): the archive could not be read (nowhere: disk gone)"
    )
    const empty = await Effect.runPromise(
      Effect.provide(Effect.flip(Recall.recall({ sessionId: "s1", handle })), TranscriptArchiveMemory.layer())
    )
    assert.strictEqual(empty.reason, "not-found")
  })
})
