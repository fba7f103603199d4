/**
 * What the adapters' stepped decoding must keep: `decodeSteps` run at once
 * (`Cooperative.runSync`) and run pausing at every step (`Cooperative.run`
 * over a slice of 0 ms) give what `decode` gives — the same transcript, the
 * same encoded views, the same error — and a long document pauses once every
 * `Cooperative.itemsPerStep` messages.
 */
import type * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import type * as Adapter from "../../src/face/adapters/Adapter.js"
import * as Cooperative from "../../src/face/engine/internal/Cooperative.js"

type Json = { [key: string]: unknown }

/** Where a document holds its messages: itself, or its `messages` (an encoded Prompt: `content`). */
const messagesKey = (document: unknown): string | undefined => {
  if (Array.isArray(document) || typeof document !== "object" || document === null) return undefined
  if (Array.isArray((document as Json)["messages"])) return "messages"
  if (Array.isArray((document as Json)["content"])) return "content"
  return undefined
}

const messagesOf = (document: unknown): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(document)) return document
  const key = messagesKey(document)
  return key === undefined ? undefined : ((document as Json)[key] as ReadonlyArray<unknown>)
}

const withMessages = (document: unknown, messages: ReadonlyArray<unknown>): unknown => {
  if (Array.isArray(document)) return messages
  const key = messagesKey(document)
  return key === undefined ? document : { ...(document as Json), [key]: messages }
}

/**
 * Generated documents made long (their messages over `times`, past one step)
 * and, one time in two, broken: one message replaced by any JSON value.
 */
export const variants = (documents: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.record({
    document: documents,
    times: fc.integer({ min: 1, max: 8 }),
    broken: fc.option(fc.tuple(fc.nat(), fc.jsonValue({ maxDepth: 2 })), { nil: undefined })
  }).map(({ broken, document, times }) => {
    const messages = messagesOf(document)
    if (messages === undefined) return document
    const long = Array.from({ length: times }, () => messages).flat()
    if (broken !== undefined && long.length > 0) long[broken[0] % long.length] = broken[1]
    return withMessages(document, long)
  })

/** The steps, counting the pauses they make. */
function* counting<A>(steps: Cooperative.Steps<A>, seen: { pauses: number }): Cooperative.Steps<A> {
  for (;;) {
    const next = steps.next()
    if (next.done === true) return next.value
    seen.pauses++
    yield
  }
}

const assertSameDecoding = (
  expected: Compat.Result<Adapter.Decoded, Adapter.AdapterError>,
  actual: Compat.Result<Adapter.Decoded, Adapter.AdapterError>
): void => {
  if (TestCompat.isFailure(expected)) {
    assert.isTrue(TestCompat.isFailure(actual))
    assert.deepStrictEqual(TestCompat.getFailure(actual), TestCompat.getFailure(expected))
    return
  }
  assert.isTrue(TestCompat.isSuccess(actual))
  if (TestCompat.isFailure(actual)) return
  const [want, got] = [TestCompat.getOrThrow(expected), TestCompat.getOrThrow(actual)]
  assert.strictEqual(got.format, want.format)
  assert.deepStrictEqual(got.transcript, want.transcript)
  // The answers: the whole transcript, and a view without its first half.
  assert.deepStrictEqual(got.encode(got.transcript), want.encode(want.transcript))
  const half = Math.floor(want.transcript.length / 2)
  assert.deepStrictEqual(got.encode(got.transcript.slice(half)), want.encode(want.transcript.slice(half)))
}

/**
 * Asserts that an adapter's `decodeSteps`, run at once and run pausing at
 * every step, decode `document` as its `decode` does, and that a decoding
 * that succeeds paused once every `Cooperative.itemsPerStep` messages.
 */
export const assertStepsAgree = (adapter: Adapter.Adapter, document: unknown): Effect.Effect<void> =>
  Effect.gen(function*() {
    const decodeSteps = adapter.decodeSteps
    assert.isDefined(decodeSteps)
    if (decodeSteps === undefined) return
    const sync = adapter.decodeResult(document)
    assertSameDecoding(sync, Cooperative.runSync(decodeSteps(document)))
    const seen = { pauses: 0 }
    const paused = yield* Cooperative.run(counting(decodeSteps(document), seen), Cooperative.slice(0))
    assertSameDecoding(sync, paused)
    if (TestCompat.isSuccess(paused)) {
      assert.strictEqual(seen.pauses, Math.floor((messagesOf(document)?.length ?? 0) / Cooperative.itemsPerStep))
    }
  })
