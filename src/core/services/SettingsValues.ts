/**
 * The compaction settings' values in the shared core (docs/effect4.md): the
 * defaults, the ranges and the words each setting takes, the names each goes
 * by (config.toml, the environment, the overrides), clamping and layering,
 * over a plain shape that both faces' `CompactionSettings` classes have.
 * `Settings` gives these under its names and wraps the values in its class.
 *
 * @since 0.1.0
 */

/**
 * The settings as plain values: the fields of `CompactionSettings`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SettingsShape {
  readonly triggerPct: number
  readonly capTokens: number
  readonly summaryMaxTokens: number
  readonly summarizerModel?: string
  readonly keepFraction: number
  readonly envelopeCapChars: number
  readonly replyReserveTokens: number
  readonly targetAfterPct: number
  readonly summaryRequest: "delimited" | "shared-prefix"
}

/**
 * A field of the settings.
 *
 * @since 0.1.0
 * @category models
 */
export type Field = keyof SettingsShape

/**
 * The defaults of SPEC R2.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: SettingsShape = {
  triggerPct: 80,
  capTokens: 250_000,
  summaryMaxTokens: 16_000,
  keepFraction: 0.3,
  envelopeCapChars: 4_000,
  replyReserveTokens: 4_096,
  targetAfterPct: 50,
  summaryRequest: "delimited"
}

/**
 * The ranges values are clamped to.
 *
 * @since 0.1.0
 * @category constants
 */
export const ranges = {
  triggerPct: [10, 95],
  capTokens: [10_000, 2_000_000],
  summaryMaxTokens: [1_000, 200_000],
  keepFraction: [0.05, 0.8],
  envelopeCapChars: [1_000, 1_000_000],
  replyReserveTokens: [0, 200_000],
  targetAfterPct: [20, 70]
} as const

/**
 * The settings that take one of a few words, with the words they take.
 *
 * @since 0.1.0
 * @category constants
 */
export const choices = {
  summaryRequest: ["delimited", "shared-prefix"]
} as const

/**
 * A numeric field: one with a range.
 *
 * @since 0.1.0
 * @category models
 */
export type NumericField = keyof typeof ranges

/**
 * A field that takes one of a few words.
 *
 * @since 0.1.0
 * @category models
 */
export type ChoiceField = keyof typeof choices

/**
 * Whether a field takes one of a few words.
 *
 * @since 0.1.0
 * @category guards
 */
export const isChoice = (field: Field): field is ChoiceField => field in choices

/**
 * Whether `value` is one of the words a choice field takes.
 *
 * @since 0.1.0
 * @category guards
 */
export const isChoiceOf = (field: ChoiceField, value: unknown): boolean =>
  (choices[field] as ReadonlyArray<unknown>).includes(value)

/**
 * Whether a field is numeric (has a range) rather than the summariser model or a choice.
 *
 * @since 0.1.0
 * @category guards
 */
export const isNumeric = (field: Field): field is NumericField => field in ranges

const clampTo = (value: number, [low, high]: readonly [number, number], fallback: number): number =>
  Number.isFinite(value) ? Math.min(Math.max(value, low), high) : fallback

/**
 * Every value clamped into its range (SPEC R2.1: pct 10–95, cap 10k–2M); a
 * value that is not a finite number takes its default, a word not among its
 * choices the default word. The fields beside them are kept as they are.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clamp = (settings: SettingsShape): SettingsShape => ({
  ...settings,
  triggerPct: clampTo(settings.triggerPct, ranges.triggerPct, defaults.triggerPct),
  capTokens: clampTo(settings.capTokens, ranges.capTokens, defaults.capTokens),
  summaryMaxTokens: clampTo(settings.summaryMaxTokens, ranges.summaryMaxTokens, defaults.summaryMaxTokens),
  keepFraction: clampTo(settings.keepFraction, ranges.keepFraction, defaults.keepFraction),
  envelopeCapChars: clampTo(settings.envelopeCapChars, ranges.envelopeCapChars, defaults.envelopeCapChars),
  replyReserveTokens: clampTo(settings.replyReserveTokens, ranges.replyReserveTokens, defaults.replyReserveTokens),
  targetAfterPct: clampTo(settings.targetAfterPct, ranges.targetAfterPct, defaults.targetAfterPct),
  summaryRequest: isChoiceOf("summaryRequest", settings.summaryRequest)
    ? settings.summaryRequest
    : defaults.summaryRequest
})

/**
 * The snake_case key of each field: its name under `[compaction]` in
 * config.toml, in the persisted overrides, in the CLI and in the HTTP API.
 *
 * @since 0.1.0
 * @category constants
 */
export const keys = {
  triggerPct: "trigger_pct",
  capTokens: "cap_tokens",
  summaryMaxTokens: "summary_max_tokens",
  summarizerModel: "summarizer_model",
  keepFraction: "keep_fraction",
  envelopeCapChars: "envelope_cap_chars",
  replyReserveTokens: "reply_reserve_tokens",
  targetAfterPct: "target_after_pct",
  summaryRequest: "summary_request"
} as const satisfies { readonly [F in Field]-?: string }

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
export const envPrefix = "CONTEXT_COMPRESSOR_COMPACTION_"

/**
 * The names one setting goes by.
 *
 * @since 0.1.0
 * @category models
 */
export interface Name {
  /** The field of `CompactionSettings`: `triggerPct`. */
  readonly field: Field
  /** The key in config.toml and the overrides: `trigger_pct`. */
  readonly key: Key
  /** The environment variable: `CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT`. */
  readonly env: string
}

/**
 * The key-name table: every setting's field, snake_case key and environment
 * variable, in the order of `CompactionSettings`.
 *
 * @since 0.1.0
 * @category constants
 */
export const names: ReadonlyArray<Name> = (Object.keys(keys) as Array<Field>).map((field) => ({
  field,
  key: keys[field],
  env: envPrefix + keys[field].toUpperCase()
}))

/**
 * The setting a name stands for: a snake_case key, a camelCase field or an
 * environment variable; undefined for any other name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const findName = (name: string): Name | undefined =>
  names.find((each) => each.key === name || each.field === name || each.env === name)

/**
 * What a setting accepts, in words, for error messages and help:
 * `a number from 10 to 95`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const allowed = (field: Field): string =>
  isNumeric(field)
    ? `a number from ${ranges[field][0]} to ${ranges[field][1]}`
    : isChoice(field)
    ? `one of ${choices[field].map((word) => JSON.stringify(word)).join(", ")}`
    : "a model id (a string; empty for the session's own model)"

/**
 * Values for some of the settings, by field: one level of the settings.
 *
 * @since 0.1.0
 * @category models
 */
export type Values = { readonly [F in Field]?: Exclude<SettingsShape[F], undefined> }

/**
 * The levels of values over the defaults, each over the ones before it, not
 * yet clamped; an empty `summarizerModel` leaves the model unpinned (the
 * session's own), so the field is absent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const merged = (levels: ReadonlyArray<Values>): SettingsShape => {
  const { summarizerModel, ...numeric } = Object.assign({}, defaults, ...levels) as Values & SettingsShape
  return summarizerModel === undefined || summarizerModel === "" ? numeric : { ...numeric, summarizerModel }
}
