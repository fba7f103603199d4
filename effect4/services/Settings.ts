/**
 * The compaction settings, read live at every checkpoint: their model, and
 * (from the shared core) their defaults, ranges, names and clamping; the
 * error an invalid value gives; the services that read them and change the
 * persisted overrides. Effect 4 face.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SettingsValues from "../../src/internal/services/SettingsValues.js"

/**
 * How the summariser is asked.
 *
 * @since 0.1.0
 * @category models
 */
export const SummaryRequestShape = Schema.Literals(["delimited", "shared-prefix"])

/**
 * The settings of compaction. Values outside their range are clamped by {@link clamp}.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactionSettings extends Schema.Class<CompactionSettings>("CompactionSettings")({
  triggerPct: Schema.Number,
  capTokens: Schema.Number,
  summaryMaxTokens: Schema.Number,
  summarizerModel: Schema.optionalKey(Schema.String),
  keepFraction: Schema.Number,
  envelopeCapChars: Schema.Number,
  replyReserveTokens: Schema.Number,
  targetAfterPct: Schema.Number.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(50)),
    Schema.withConstructorDefault(Effect.succeed(50))
  ),
  summaryRequest: SummaryRequestShape.pipe(
    Schema.withDecodingDefaultKey(Effect.succeed("delimited" as const)),
    Schema.withConstructorDefault(Effect.succeed("delimited" as const))
  )
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
 * A field of `CompactionSettings`.
 *
 * @since 0.1.0
 * @category models
 */
export type Field = SettingsValues.Field

/**
 * A numeric field: one with a range.
 *
 * @since 0.1.0
 * @category models
 */
export type NumericField = SettingsValues.NumericField

/**
 * A field that takes one of a few words.
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
 * Whether a field is numeric.
 *
 * @since 0.1.0
 * @category guards
 */
export const isNumeric: (field: Field) => field is NumericField = SettingsValues.isNumeric

/**
 * Clamps every value into its range; a value that is not a finite number takes its default.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clamp = (settings: CompactionSettings): CompactionSettings =>
  new CompactionSettings(SettingsValues.clamp(settings))

/**
 * The snake_case key of each field.
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
export type Key = SettingsValues.Key

/**
 * The prefix of each setting's environment variable.
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
 * The key-name table.
 *
 * @since 0.1.0
 * @category constants
 */
export const names: ReadonlyArray<Name> = SettingsValues.names

/**
 * The setting a name stands for: a snake_case key, a camelCase field or an environment variable.
 *
 * @since 0.1.0
 * @category constructors
 */
export const nameOf = (name: string): Option.Option<Name> => Option.fromNullishOr(SettingsValues.findName(name))

/**
 * What a setting accepts, in words.
 *
 * @since 0.1.0
 * @category constructors
 */
export const allowed: (field: Field) => string = SettingsValues.allowed

/**
 * Values for some of the settings, by field: one level of the settings.
 *
 * @since 0.1.0
 * @category models
 */
export type Values = SettingsValues.Values

/**
 * The persisted overrides, by snake_case key.
 *
 * @since 0.1.0
 * @category models
 */
export type Overrides = {
  readonly [F in Field as (typeof keys)[F]]?: Exclude<SettingsValues.SettingsShape[F], undefined>
}

/**
 * The settings given by levels of values over the defaults, clamped.
 *
 * @since 0.1.0
 * @category constructors
 */
export const layered = (levels: ReadonlyArray<Values>): CompactionSettings =>
  clamp(new CompactionSettings(SettingsValues.merged(levels)))

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
 * @since 0.1.0
 * @category tags
 */
export class Settings extends Context.Service<Settings, Service>()("context-compressor/Settings") {}

/**
 * A settings service from its reading of the settings now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (service: Service): Service => Settings.of(service)

/**
 * Why a setting was refused.
 *
 * @since 0.1.0
 * @category models
 */
export const SettingsErrorReason = Schema.Literals([
  "syntax",
  "wrong-type",
  "unknown-key",
  "not-a-number",
  "out-of-range",
  "unreadable",
  "unwritable"
])

/**
 * A setting that was refused, or settings that could not be read or written.
 *
 * @since 0.1.0
 * @category errors
 */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  reason: SettingsErrorReason,
  source: Schema.String,
  key: Schema.optionalKey(Schema.String),
  value: Schema.optionalKey(Schema.String),
  allowed: Schema.optionalKey(Schema.String),
  message: Schema.String
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export interface OverridesService {
  readonly get: Effect.Effect<Overrides, SettingsError>
  readonly set: (key: string, value: string | number) => Effect.Effect<CompactionSettings, SettingsError>
  readonly unset: (key: string) => Effect.Effect<CompactionSettings, SettingsError>
}

/**
 * The persisted settings overrides: the highest level of the settings.
 *
 * @since 0.1.0
 * @category tags
 */
export class SettingsOverrides
  extends Context.Service<SettingsOverrides, OverridesService>()("context-compressor/SettingsOverrides")
{}

/**
 * The persisted settings overrides from their operations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeOverrides = (service: OverridesService): OverridesService => SettingsOverrides.of(service)
