import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import { prop } from "../../../support/Property.js"

const current = Effect.flatMap(Settings.Settings, (settings) => settings.current)

const anyNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 0))

describe("SettingsFixed", () => {
  it.effect("with no overrides, the settings are the defaults", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* current, Settings.defaults)
    }).pipe(Effect.provide(SettingsFixed.layer())))

  it.effect("an override in range is kept as given", () =>
    Effect.gen(function*() {
      const settings = yield* current
      assert.strictEqual(settings.triggerPct, 60)
      assert.strictEqual(settings.summarizerModel, "small-model")
      assert.strictEqual(settings.capTokens, Settings.defaults.capTokens)
    }).pipe(Effect.provide(SettingsFixed.layer({ triggerPct: 60, summarizerModel: "small-model" }))))

  const clamped: ReadonlyArray<readonly [SettingsFixed.Overrides, "triggerPct" | "capTokens", number]> = [
    [{ triggerPct: 5 }, "triggerPct", 10],
    [{ triggerPct: 99 }, "triggerPct", 95],
    [{ capTokens: 1 }, "capTokens", 10_000],
    [{ capTokens: 3_000_000 }, "capTokens", 2_000_000]
  ]
  for (const [overrides, field, expected] of clamped) {
    it.effect(`${field} ${overrides[field]} is clamped to ${expected}`, () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* current)[field], expected)
      }).pipe(Effect.provide(SettingsFixed.layer(overrides))))
  }

  it.effect("a value that is not a finite number takes its default", () =>
    Effect.gen(function*() {
      const settings = yield* current
      assert.strictEqual(settings.triggerPct, Settings.defaults.triggerPct)
      assert.strictEqual(settings.capTokens, Settings.defaults.capTokens)
    }).pipe(Effect.provide(SettingsFixed.layer({ triggerPct: Number.NaN, capTokens: Infinity }))))

  prop(
    "clamp lands every value in its range, for any numbers, NaN and infinities included",
    [fc.record({
      triggerPct: anyNumber,
      capTokens: anyNumber,
      summaryMaxTokens: anyNumber,
      keepFraction: anyNumber,
      envelopeCapChars: anyNumber,
      replyReserveTokens: anyNumber
    })],
    ([values]) => {
      const settings = Settings.clamp(new Settings.CompactionSettings(values))
      for (const [field, [low, high]] of Object.entries(Settings.ranges)) {
        const value = settings[field as keyof typeof Settings.ranges]
        assert.isTrue(Number.isFinite(value), `${field} is finite`)
        assert.isAtLeast(value, low, field)
        assert.isAtMost(value, high, field)
      }
      assert.deepStrictEqual(Settings.clamp(settings), settings)
    }
  )

  it.layer(SettingsFixed.layerRef)("layerRef", (it) => {
    it.effect("a change through SettingsControl is seen by the next current, clamped", () =>
      Effect.gen(function*() {
        const control = yield* SettingsFixed.SettingsControl
        const before = yield* current
        assert.deepStrictEqual(before, Settings.defaults)
        yield* control.set({ triggerPct: 50 })
        assert.strictEqual((yield* current).triggerPct, 50)
        yield* control.set({ capTokens: 3_000_000 })
        const after = yield* current
        assert.strictEqual(after.capTokens, 2_000_000)
        assert.strictEqual(after.triggerPct, 50, "a later change keeps the earlier ones")
        assert.strictEqual(before.triggerPct, Settings.defaults.triggerPct, "settings read earlier do not change")
      }))
  })
})
