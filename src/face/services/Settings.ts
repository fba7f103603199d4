/**
 * The compaction settings, read live at every checkpoint so that a change
 * applies to running sessions (SPEC R2.11): their model, defaults and ranges,
 * the names each setting goes by in config.toml, the environment and the
 * persisted overrides, the error an invalid value gives, and the services
 * that read them and that change the persisted overrides.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SettingsValues from "../../core/services/SettingsValues.js"

/**
 * How the summariser is asked: `"delimited"` or `"shared-prefix"` (the `summaryRequest` setting).
 *
 * @since 0.1.0
 * @category models
 */
export const SummaryRequestShape = Compat.Literals(["delimited", "shared-prefix"])

/**
 * The settings of compaction. Values outside their range are clamped by {@link clamp}.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactionSettings extends Schema.Class<CompactionSettings>("CompactionSettings")({
  /** The trigger as a percentage of the context window: 10–95 (default 80). */
  triggerPct: Schema.Number,
  /** The absolute trigger cap in tokens: 10,000–2,000,000 (default 250,000). */
  capTokens: Schema.Number,
  /** The summary budget in tokens (default 16,000). */
  summaryMaxTokens: Schema.Number,
  /** The summariser model; absent: the session's own model. */
  summarizerModel: Compat.optionalKey(Schema.String),
  /** The fraction of the trigger kept verbatim after the boundary: 0.05–0.8 (default 0.3). */
  keepFraction: Schema.Number,
  /** The cap, in characters, of one tool result rendered into the summariser request (default 4,000). */
  envelopeCapChars: Schema.Number,
  /** Tokens left free for the model's reply under the trigger (default 4,096). */
  replyReserveTokens: Schema.Number,
  /**
   * The most the view may take right after a compaction, as a percentage of the
   * trigger: 20–70 (default 50). The next compaction is then always several turns away.
   */
  targetAfterPct: Compat.optionalWithDefault(Schema.Number, () => 50),
  /**
   * How the summariser is asked (default `"delimited"`): the span rendered as a
   * delimited transcript after the instruction, or `"shared-prefix"`, the view as
   * it was last sent to the provider followed by one user message that restates
   * the instruction, so the provider's prompt cache serves the request's head.
   */
  summaryRequest: Compat.optionalWithDefault(SummaryRequestShape, () => "delimited" as const)
}) {}

/**
 * The defaults of SPEC R2.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: CompactionSettings = new CompactionSettings(SettingsValues.defaults)

/**
 * The ranges values are clamped to.
 *
 * @since 0.1.0
 * @category constants
 */
export const ranges: typeof SettingsValues.ranges = SettingsValues.ranges

/**
 * The settings that take one of a few words, with the words they take.
 *
 * @since 0.1.0
 * @category constants
 */
export const choices: typeof SettingsValues.choices = SettingsValues.choices

/**
 * A field that takes one of a few words (see {@link choices}).
 *
 * @since 0.1.0
 * @category models
 */
export type ChoiceField = SettingsValues.ChoiceField

/**
 * Whether a field takes one of a few words.
 *
 * @since 0.1.0
 * @category guards
 */
export const isChoice: (field: Field) => field is ChoiceField = SettingsValues.isChoice

/**
 * Whether `value` is one of the words a choice field takes.
 *
 * @since 0.1.0
 * @category guards
 */
export const isChoiceOf: (field: ChoiceField, value: unknown) => boolean = SettingsValues.isChoiceOf

/**
 * Clamps every value into its range (SPEC R2.1: pct 10–95, cap 10k–2M); a
 * value that is not a finite number takes its default.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clamp = (settings: CompactionSettings): CompactionSettings =>
  new CompactionSettings(SettingsValues.clamp(settings))

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The settings now: read at every checkpoint. */
  readonly current: Effect.Effect<CompactionSettings>
}

/**
 * The settings service.
 *
 * @example
 * ```ts
 * import { SettingsFixed } from "context-compressor/layers"
 * import { Settings } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // The compaction settings in effect: here the defaults, with an earlier trigger.
 * const program = Effect.gen(function*() {
 *   const settings = yield* Settings.Settings
 *   const current = yield* settings.current
 *   assert.strictEqual(current.triggerPct, 70)
 *   assert.strictEqual(current.keepFraction, Settings.defaults.keepFraction)
 * })
 *
 * await Effect.runPromise(program.pipe(Effect.provide(SettingsFixed.layer({ triggerPct: 70 }))))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Settings extends Compat.Service<Settings, Service>()("context-compressor/Settings") {}

/**
 * A field of `CompactionSettings`.
 *
 * @since 0.1.0
 * @category models
 */
export type Field = keyof typeof CompactionSettings.fields

/**
 * A numeric field of `CompactionSettings`: one with a range.
 *
 * @since 0.1.0
 * @category models
 */
export type NumericField = SettingsValues.NumericField

/**
 * The snake_case key of each field: its name under `[compaction]` in
 * config.toml, in the persisted overrides, in the CLI and in the HTTP API.
 *
 * @since 0.1.0
 * @category constants
 */
export const keys: typeof SettingsValues.keys = SettingsValues.keys

/**
 * A snake_case settings key.
 *
 * @since 0.1.0
 * @category models
 */
export type Key = (typeof keys)[Field]

/**
 * The prefix of the environment variable of each setting: the variable is
 * the prefix and the key in upper case, `CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT`.
 *
 * @since 0.1.0
 * @category constants
 */
export const envPrefix: typeof SettingsValues.envPrefix = SettingsValues.envPrefix

/**
 * The names one setting goes by.
 *
 * @since 0.1.0
 * @category models
 */
export type Name = SettingsValues.Name

/**
 * The key-name table: every setting's field, snake_case key and environment
 * variable, in the order of `CompactionSettings`.
 *
 * @since 0.1.0
 * @category constants
 */
export const names: ReadonlyArray<Name> = SettingsValues.names

/**
 * The setting a name stands for: a snake_case key, a camelCase field or an
 * environment variable; none for any other name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const nameOf = (name: string): Option.Option<Name> => Compat.fromNullishOr(SettingsValues.findName(name))

/**
 * Whether a field is numeric (has a range) rather than the summariser model.
 *
 * @since 0.1.0
 * @category guards
 */
export const isNumeric: (field: Field) => field is NumericField = SettingsValues.isNumeric

/**
 * What a setting accepts, in words, for error messages and help:
 * `a number from 10 to 95`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const allowed: (field: Field) => string = SettingsValues.allowed

/**
 * Values for some of the settings, by field: one level of the settings
 * (the config file, the environment, the persisted overrides). An empty
 * `summarizerModel` stands for the session's own model.
 *
 * @since 0.1.0
 * @category models
 */
export type Values = { readonly [F in Field]?: Exclude<CompactionSettings[F], undefined> }

/**
 * The persisted overrides, by snake_case key, as `SettingsOverrides.get` gives them.
 *
 * @since 0.1.0
 * @category models
 */
export type Overrides = { readonly [F in Field as (typeof keys)[F]]?: Exclude<CompactionSettings[F], undefined> }

/**
 * The settings given by levels of values over the defaults, each level over
 * the ones before it, clamped; an empty `summarizerModel` leaves the model
 * unpinned (the session's own).
 *
 * @since 0.1.0
 * @category constructors
 */
export const layered = (levels: ReadonlyArray<Values>): CompactionSettings =>
  clamp(new CompactionSettings(SettingsValues.merged(levels)))

/**
 * Why a setting was refused.
 *
 * @since 0.1.0
 * @category models
 */
export const SettingsErrorReason = Compat.Literals([
  "syntax",
  "wrong-type",
  "unknown-key",
  "not-a-number",
  "out-of-range",
  "unreadable",
  "unwritable"
])

/**
 * @since 0.1.0
 * @category models
 */
export type SettingsErrorReason = typeof SettingsErrorReason.Type

/**
 * A setting that was refused, or settings that could not be read or
 * written: the reason, where it came from (`config.toml:3`, an environment
 * variable, `override`, `settings_overrides`), the key and the value as
 * written, what the key accepts, and one sentence saying all of it.
 *
 * @example
 * ```ts
 * import { Production, SettingsConfig } from "context-compressor/layers"
 * import { Settings } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 *
 * // A value a setting does not accept is refused: the error says why, for which key, and what it allows.
 * const program = Effect.gen(function*() {
 *   const overrides = yield* Settings.SettingsOverrides
 *   return yield* overrides.set("trigger_pct", "most of it")
 * })
 * const settings = SettingsConfig.layerMemory({ path: "no-such-folder/config.toml", env: () => ({}) })
 * const error = await Effect.runPromise(
 *   Effect.flip(program).pipe(Effect.provide(settings.pipe(Layer.provide(Production.nodeFileSystem))))
 * )
 * assert.strictEqual(error._tag, "SettingsError")
 * assert.strictEqual(error.reason, "not-a-number")
 * assert.strictEqual(error.key, "trigger_pct")
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  reason: SettingsErrorReason,
  source: Schema.String,
  key: Compat.optionalKey(Schema.String),
  value: Compat.optionalKey(Schema.String),
  allowed: Compat.optionalKey(Schema.String),
  message: Schema.String
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export interface OverridesService {
  /** The persisted overrides. */
  readonly get: Effect.Effect<Overrides, SettingsError>
  /**
   * Persists an override of the setting named `key` (snake_case key or
   * camelCase field) and gives the settings in effect after it. A number out
   * of range is clamped into it; a value that is not a number, for a numeric
   * setting, or an unknown key is refused.
   */
  readonly set: (key: string, value: string | number) => Effect.Effect<CompactionSettings, SettingsError>
  /** Removes the override of `key`, if any, and gives the settings in effect after it. */
  readonly unset: (key: string) => Effect.Effect<CompactionSettings, SettingsError>
}

/**
 * The persisted settings overrides, set at run time (the CLI `settings set`,
 * the HTTP settings endpoint): the highest level of the settings.
 *
 * @example
 * ```ts
 * import { Production, SettingsConfig } from "context-compressor/layers"
 * import { Settings } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 *
 * // What `context-compressor config set trigger_pct 60` does: an override over config.toml and the environment.
 * const program = Effect.gen(function*() {
 *   const overrides = yield* Settings.SettingsOverrides
 *   const updated = yield* overrides.set("trigger_pct", 60)
 *   assert.strictEqual(updated.triggerPct, 60)
 *   assert.deepStrictEqual(yield* overrides.get, { trigger_pct: 60 })
 * })
 *
 * const settings = SettingsConfig.layerMemory({ path: "no-such-folder/config.toml", env: () => ({}) })
 * await Effect.runPromise(program.pipe(Effect.provide(settings.pipe(Layer.provide(Production.nodeFileSystem)))))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class SettingsOverrides
  extends Compat.Service<SettingsOverrides, OverridesService>()("context-compressor/SettingsOverrides")
{}
