import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Clip from "../../../../src/core/reduce/Clip.js"
import { prop } from "../../../support/Property.js"

const loneSurrogates = (text: string): number =>
  (text.match(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g) ?? []).length

describe("Clip.headTail", () => {
  prop("never returns more than max characters, and says how much it cut", [
    fc.string({ unit: "grapheme", maxLength: 3000 }),
    fc.integer({ min: Clip.minimumMax, max: 2000 })
  ], ([text, max]) => {
    const { omitted, text: clipped } = Clip.headTailCounted(text, max)
    assert.isAtMost(clipped.length, max)
    if (text.length <= max) {
      assert.strictEqual(clipped, text)
      assert.strictEqual(omitted, 0)
    } else {
      assert.include(clipped, `clipped: ${omitted} of ${text.length} characters omitted`)
    }
  })

  prop("clipping twice changes nothing", [
    fc.string({ maxLength: 3000 }),
    fc.integer({ min: Clip.minimumMax, max: 2000 })
  ], ([text, max]) => {
    const once = Clip.headTail(text, max)
    assert.strictEqual(Clip.headTail(once, max), once)
  })

  prop("never splits a surrogate pair", [
    fc.string({ unit: "grapheme", minLength: 200, maxLength: 2000 }),
    fc.integer({ min: Clip.minimumMax, max: 400 })
  ], ([text, max]) => {
    assert.strictEqual(loneSurrogates(Clip.headTail(text, max)), loneSurrogates(text))
  })

  it("keeps the head and the tail", () => {
    const text = "HEAD" + "-".repeat(10_000) + "TAIL"
    const clipped = Clip.headTail(text, 200)
    assert.isTrue(clipped.startsWith("HEAD"))
    assert.isTrue(clipped.endsWith("TAIL"))
  })
})
