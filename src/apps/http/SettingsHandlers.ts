/**
 * The handlers of the settings group of the HTTP API: `GET` and `POST
 * /v1/settings/compaction`, the settings as the API spells them (snake case),
 * a change checked whole before anything is written.
 *
 * @since 0.1.0
 */
import * as Http from "#compat-http"
import { HttpApiBuilder } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SettingsConfig from "../../face/layers/SettingsConfig.js"
import * as Settings from "../../face/services/Settings.js"
import * as Api from "./HttpApi.js"

const snakeSettings = (settings: Settings.CompactionSettings): typeof Api.EffectiveSettings.Type => ({
  trigger_pct: settings.triggerPct,
  cap_tokens: settings.capTokens,
  summary_max_tokens: settings.summaryMaxTokens,
  summarizer_model: settings.summarizerModel ?? null,
  keep_fraction: settings.keepFraction,
  envelope_cap_chars: settings.envelopeCapChars,
  reply_reserve_tokens: settings.replyReserveTokens,
  target_after_pct: settings.targetAfterPct,
  summary_request: settings.summaryRequest
})

const ranges: Record<string, readonly [number, number]> = Object.fromEntries(
  Settings.names.flatMap((name) => (Settings.isNumeric(name.field) ? [[name.key, Settings.ranges[name.field]]] : []))
)

const fromSettingsError = (error: Settings.SettingsError): Api.InvalidSetting | Api.ServerError =>
  error.reason === "unreadable" || error.reason === "unwritable"
    ? new Api.ServerError({ message: error.message })
    : new Api.InvalidSetting({
      reason: error.reason,
      message: error.message,
      ...(error.key === undefined ? {} : { key: error.key }),
      ...(error.value === undefined ? {} : { value: error.value }),
      ...(error.allowed === undefined ? {} : { allowed: error.allowed })
    })

const keyList = Settings.names.map((name) => name.key).join(", ")

/**
 * The handlers of `GET` and `POST /v1/settings/compaction`. A change is checked
 * whole before anything is written: one refused value writes nothing.
 *
 * @since 0.1.0
 * @category handlers
 */
export const layerSettings = HttpApiBuilder.group(Api.Api, "settings", (handlers) =>
  Effect.gen(function*() {
    const settings = yield* Settings.Settings
    const overrides = yield* Settings.SettingsOverrides
    const view = (clamped: ReadonlyArray<typeof Api.Clamped.Type>) =>
      Effect.gen(function*() {
        const current = Settings.clamp(yield* settings.current)
        const persisted = yield* overrides.get
        return new Api.SettingsView({ settings: snakeSettings(current), overrides: persisted, ranges, clamped })
      }).pipe(Effect.mapError((error) => new Api.ServerError({ message: error.message })))
    return handlers
      .handle("get", () => view([]))
      .handle("set", ({ payload }) =>
        Effect.gen(function*() {
          const changes: Array<{ readonly name: Settings.Name; readonly value: string | number | null }> = []
          const clamped: Array<typeof Api.Clamped.Type> = []
          for (const [given, value] of Object.entries(payload)) {
            const name = Option.getOrUndefined(Settings.nameOf(given))
            if (name === undefined) {
              return yield* new Api.InvalidSetting({
                reason: "unknown-key",
                key: given,
                allowed: keyList,
                message: `${given} is not a setting; allowed: ${keyList}`
              })
            }
            if (changes.some((change) => change.name.key === name.key)) {
              return yield* new Api.InvalidSetting({
                reason: "unknown-key",
                key: given,
                allowed: "each setting once",
                message: `${name.key} is given twice (as ${given} and another name)`
              })
            }
            if (value !== null) {
              const checked = SettingsConfig.overrideText(given, value)
              if (Http.isFailure(checked)) return yield* fromSettingsError(Http.failureOf(checked))
              const number = typeof value === "number" ? value : Number(value.trim().replaceAll("_", ""))
              const stored = Number(Http.successOf(checked)[1])
              if (Settings.isNumeric(name.field) && stored !== number) {
                clamped.push({ key: name.key, given: number, stored, allowed: Settings.allowed(name.field) })
              }
            }
            changes.push({ name, value })
          }
          for (const change of changes) {
            yield* (change.value === null
              ? overrides.unset(change.name.key)
              : overrides.set(change.name.key, change.value)).pipe(
                Effect.mapError(fromSettingsError)
              )
          }
          return yield* view(clamped)
        }))
  }))
