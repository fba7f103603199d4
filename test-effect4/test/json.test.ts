/**
 * `Json` on the Effect 4 face (`context-compressor/effect4`): the core's reader and writer with
 * `parse` answering with Effect 4's `Result`. Number literals a double cannot hold round-trip
 * exactly, and every example envelope, shared fixture and exact-number text parses and is written
 * back to what the Effect 3 face's `Json` writes (printed by `test/support/Effect3Json.ts` in a
 * process of its own on the package's Effect 3), or fails with the same reason.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Json } from "../../src/effect4/index.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

type Effect3Case =
  & { readonly name: string; readonly text: string }
  & ({ readonly compact: string; readonly indented: string } | { readonly failure: string })

const effect3: ReadonlyArray<Effect3Case> = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Json.ts"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024
  })
)

describe("Json on the Effect 4 face", () => {
  it("parse answers with a Result: exact numbers round-trip, and text that is not JSON is a JsonParseError", () => {
    const text = "{\"id\":12345678901234567890,\"big\":1e400,\"zero\":-0,\"ok\":true}"
    const parsed = Json.parse(text)
    assert.isTrue(Result.isSuccess(parsed))
    const value = Result.getOrThrow(parsed)
    assert.strictEqual(Json.stringify(value), text)
    assert.isTrue(Json.isRawNumber(Json.getPath(value, "id") as string))
    assert.strictEqual(Json.rawNumberLiteral(Json.getPath(value, "big") as string), "1e400")
    assert.notStrictEqual(JSON.stringify(JSON.parse(text)), text)
    assert.strictEqual(Json.stringify(Result.getOrThrow(Json.parseExactly("[1,2.5]"))), "[1,2.5]")
    const failed = Json.parse("{\"open\":")
    assert.isTrue(Result.isFailure(failed))
    if (Result.isFailure(failed)) {
      assert.instanceOf(failed.failure, Json.JsonParseError)
      assert.strictEqual(failed.failure._tag, "JsonParseError")
    }
  })

  it("every example envelope, shared fixture and exact-number text is written back as the Effect 3 face writes it", () => {
    assert.isAtLeast(effect3.length, 10)
    for (const expected of effect3) {
      const parsed = Json.parse(expected.text)
      if ("failure" in expected) {
        assert.isTrue(Result.isFailure(parsed), expected.name)
        if (Result.isFailure(parsed)) assert.strictEqual(parsed.failure.reason, expected.failure, expected.name)
      } else {
        const value = Result.getOrThrow(parsed)
        assert.strictEqual(Json.stringify(value), expected.compact, expected.name)
        assert.strictEqual(Json.stringify(value, 2), expected.indented, expected.name)
      }
    }
  })

  it.prop("a JSON value drawn from Schema.Json is written as JSON.stringify writes it, and read back to it", [
    Schema.Json
  ], ([value]) => {
    const text = Json.stringify(value)
    assert.strictEqual(text, JSON.stringify(value))
    assert.strictEqual(Json.stringify(Result.getOrThrow(Json.parse(text))), text)
  })
})
