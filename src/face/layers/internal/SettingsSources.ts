/**
 * The levels of the production settings read from their sources: the values
 * of a config file's text, of the environment and of persisted override rows,
 * and the text an override is persisted as, each checked (an unknown key, a
 * value of the wrong type or out of range is a `SettingsError` naming where it
 * was). `SettingsConfig` layers them and re-exports the public ones.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Option from "effect/Option"
import * as Toml from "smol-toml"
import * as Settings from "../../services/Settings.js"

/**
 * The source named by errors about a value given to `SettingsOverrides`.
 *
 * @since 0.1.0
 * @category constants
 */
export const overrideSource = "override"

/** The keys a setting may have, for a refusal's list. */
export const keyList = Settings.names.map((name) => name.key).join(", ")

/** A `SettingsError` naming where the value was, what is wrong with it and what is allowed. */
export const refuse = (fields: {
  readonly reason: Settings.SettingsErrorReason
  readonly source: string
  readonly key?: string
  readonly value?: string
  readonly problem: string
  readonly allowed?: string
}): Settings.SettingsError => {
  const { problem, ...rest } = fields
  const what = fields.key === undefined
    ? ""
    : fields.value === undefined
    ? ` ${fields.key}`
    : ` ${fields.key} = ${fields.value}`
  const allowedText = fields.allowed === undefined ? "" : `; allowed: ${fields.allowed}`
  return new Settings.SettingsError({ ...rest, message: `${fields.source}:${what} ${problem}${allowedText}` })
}

const render = (value: unknown): string =>
  typeof value === "string"
    ? JSON.stringify(value)
    : typeof value === "number" || typeof value === "boolean" || typeof value === "bigint"
    ? String(value)
    : value instanceof Toml.TomlDate
    ? value.toISOString()
    : JSON.stringify(value) ?? String(value)

// Decimal numbers as people write them in a shell or a form: `80`, `0.3`, `250_000`, `1e5`.
const decimal = /^[+-]?\d+(_\d+)*(\.\d+(_\d+)*)?([eE][+-]?\d+)?$/

const numberFromText = (text: string): Option.Option<number> => {
  const trimmed = text.trim()
  return decimal.test(trimmed) ? Option.some(Number(trimmed.replaceAll("_", ""))) : Option.none()
}

/** A value checked here: the value, or the refusal that is the source's answer. */
type Checked<A> = { readonly ok: true; readonly value: A } | {
  readonly ok: false
  readonly error: Settings.SettingsError
}

const accept = <A>(value: A): Checked<A> => ({ ok: true, value })

const reject = (error: Settings.SettingsError): Checked<never> => ({ ok: false, error })

const inRange = (
  field: Settings.NumericField,
  value: number,
  where: { readonly source: string; readonly key: string; readonly value: string }
): Checked<number> => {
  const [low, high] = Settings.ranges[field]
  return Number.isNaN(value)
    ? reject(
      refuse({ reason: "not-a-number", ...where, problem: "is not a number", allowed: Settings.allowed(field) })
    )
    : value < low || value > high
    ? reject(
      refuse({ reason: "out-of-range", ...where, problem: "is out of range", allowed: Settings.allowed(field) })
    )
    : accept(value)
}

const clampInto = (field: Settings.NumericField, value: number): number =>
  Math.min(Math.max(value, Settings.ranges[field][0]), Settings.ranges[field][1])

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

// smol-toml gives positions for syntax errors only; a value's line is found
// by looking for its key in its table (`[compaction]`, or the root for
// `compaction` itself), or as a dotted key or in an inline table.
const lineOf = (text: string, key: string, inTable: "compaction" | "" = "compaction"): Option.Option<number> => {
  const direct = new RegExp(`^\\s*["']?${escapeRegExp(key)}["']?\\s*=`)
  const nested = new RegExp(`\\bcompaction["']?\\s*[.=].*\\b${escapeRegExp(key)}["']?\\s*=`)
  let table = ""
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ""
    const header = /^\s*\[\s*([^\]]*?)\s*\]/.exec(line)
    if (header !== null) table = (header[1] ?? "").replace(/["'\s]/g, "")
    else if ((table === inTable && direct.test(line)) || (inTable === "compaction" && nested.test(line))) {
      return Option.some(index + 1)
    }
  }
  return Option.none()
}

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Toml.TomlDate)

const flatPrefix = "compaction_"

/**
 * The values of a config file's text: its `[compaction]` table and its
 * top-level `compaction_<key>` settings (the SPEC's spelling), or the first
 * problem (syntax, an unknown key, a key set twice, a value of the wrong type
 * or out of range), naming `path` and the line. A file without either gives no values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromToml = (text: string, path: string): Compat.Result<Settings.Values, Settings.SettingsError> => {
  let document: Record<string, unknown>
  try {
    document = Toml.parse(text)
  } catch (error) {
    if (error instanceof Toml.TomlError) {
      const problem = error.message.split("\n")[0]?.replace(/^Invalid TOML document:\s*/, "") ?? "invalid TOML"
      const line = (text.split(/\r?\n/)[error.line - 1] ?? "").trim()
      return Compat.Result.fail(refuse({
        reason: "syntax",
        source: `${path}:${error.line}:${error.column}`,
        value: line,
        problem: `not valid TOML (${problem}) in \`${line}\``,
        allowed: "TOML (https://toml.io)"
      }))
    }
    return Compat.Result.fail(
      refuse({ reason: "syntax", source: path, problem: `could not be parsed: ${String(error)}` })
    )
  }
  const at = (key: string, table?: "") =>
    Option.match(lineOf(text, key, table), { onNone: () => path, onSome: (line) => `${path}:${line}` })
  const compaction = document["compaction"] ?? {}
  if (!isTable(compaction)) {
    return Compat.Result.fail(refuse({
      reason: "wrong-type",
      source: at("compaction", ""),
      key: "compaction",
      value: render(compaction),
      problem: "is not a table",
      allowed: `a [compaction] table of ${keyList}`
    }))
  }
  // SPEC R2.5 spells a setting as a top-level `compaction_<key>`; the [compaction] table is the same thing.
  const flat = Object.entries(document).flatMap(([key, raw]) =>
    key.startsWith(flatPrefix) ? [[key.slice(flatPrefix.length), raw, key] as const] : []
  )
  const entries = [...Object.entries(compaction).map(([key, raw]) => [key, raw, key] as const), ...flat]
  const values: Record<string, unknown> = {}
  const seen = new Set<string>()
  for (const [key, raw, written] of entries) {
    const where = { source: written === key ? at(key) : at(written, ""), key: written, value: render(raw) }
    if (seen.has(key)) {
      return Compat.Result.fail(
        refuse({
          reason: "unknown-key",
          ...where,
          problem: `sets ${key} a second time (as compaction.${key} and ${flatPrefix}${key})`,
          allowed: "each setting once"
        })
      )
    }
    seen.add(key)
    const name = Settings.names.find((each) => each.key === key)
    if (name === undefined) {
      return Compat.Result.fail(
        refuse({ reason: "unknown-key", ...where, problem: "is not a setting", allowed: keyList })
      )
    }
    const field = name.field
    if (Settings.isNumeric(field)) {
      if (typeof raw !== "number") {
        return Compat.Result.fail(
          refuse({ reason: "wrong-type", ...where, problem: "is not a number", allowed: Settings.allowed(field) })
        )
      }
      const checked = inRange(field, raw, where)
      if (!checked.ok) return Compat.Result.fail(checked.error)
      values[field] = checked.value
    } else {
      if (typeof raw !== "string") {
        return Compat.Result.fail(
          refuse({ reason: "wrong-type", ...where, problem: "is not a string", allowed: Settings.allowed(field) })
        )
      }
      const checked = choiceChecked(field, raw, where)
      if (!checked.ok) return Compat.Result.fail(checked.error)
      values[field] = checked.value
    }
  }
  return Compat.Result.succeed(values as Settings.Values)
}

/** A text setting's value trimmed; for a choice, refused unless it is one of its words. */
const choiceChecked = (
  field: Settings.Field,
  raw: string,
  where: { readonly source: string; readonly key: string; readonly value: string }
): Checked<string> => {
  const text = raw.trim()
  if (!Settings.isChoice(field) || Settings.isChoiceOf(field, text)) return accept(text)
  return reject(
    refuse({ reason: "out-of-range", ...where, problem: "is not one of its words", allowed: Settings.allowed(field) })
  )
}

/**
 * The values the environment sets (`CONTEXT_COMPRESSOR_COMPACTION_<KEY>`), or
 * the first problem (an unknown variable under the prefix, a value that is not
 * a number or out of range), naming the variable. A variable set to the
 * empty string counts as not set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnv = (
  env: Record<string, string | undefined>
): Compat.Result<Settings.Values, Settings.SettingsError> => {
  const values: Record<string, unknown> = {}
  for (const [variable, raw] of Object.entries(env)) {
    if (!variable.startsWith(Settings.envPrefix) || raw === undefined || raw.trim() === "") continue
    const where = {
      source: variable,
      key: variable.slice(Settings.envPrefix.length).toLowerCase(),
      value: JSON.stringify(raw)
    }
    const name = Settings.names.find((each) => each.env === variable)
    if (name === undefined) {
      return Compat.Result.fail(refuse({
        reason: "unknown-key",
        ...where,
        problem: "is not a setting",
        allowed: Settings.names.map((each) => each.env).join(", ")
      }))
    }
    const field = name.field
    if (Settings.isNumeric(field)) {
      const checked = Option.match(numberFromText(raw), {
        onNone: () => inRange(field, Number.NaN, where),
        onSome: (value) => inRange(field, value, where)
      })
      if (!checked.ok) return Compat.Result.fail(checked.error)
      values[field] = checked.value
    } else {
      const checked = choiceChecked(field, raw, where)
      if (!checked.ok) return Compat.Result.fail(checked.error)
      values[field] = checked.value
    }
  }
  return Compat.Result.succeed(values as Settings.Values)
}

/**
 * The text an override of `key` is persisted as: a number clamped into its
 * range, or the model id trimmed; refused for an unknown key, and for a value
 * that is not a number where the setting is numeric.
 *
 * @since 0.1.0
 * @category constructors
 */
export const overrideText = (
  key: string,
  value: string | number
): Compat.Result<readonly [Settings.Name, string], Settings.SettingsError> => {
  const name = Option.getOrUndefined(Settings.nameOf(key))
  const where = { source: overrideSource, key, value: render(value) }
  if (name === undefined) {
    return Compat.Result.fail(
      refuse({ reason: "unknown-key", ...where, problem: "is not a setting", allowed: keyList })
    )
  }
  const field = name.field
  if (!Settings.isNumeric(field)) {
    if (typeof value !== "string") {
      return Compat.Result.fail(
        refuse({ reason: "wrong-type", ...where, problem: "is not a string", allowed: Settings.allowed(field) })
      )
    }
    const checked = choiceChecked(field, value, where)
    return checked.ok ? Compat.Result.succeed([name, checked.value] as const) : Compat.Result.fail(checked.error)
  }
  const number = typeof value === "number" ? value : Option.getOrElse(numberFromText(value), () => Number.NaN)
  if (!Number.isFinite(number)) {
    return Compat.Result.fail(
      refuse({ reason: "not-a-number", ...where, problem: "is not a number", allowed: Settings.allowed(field) })
    )
  }
  return Compat.Result.succeed([name, String(clampInto(field, number))] as const)
}

/**
 * The values of the persisted override rows. Rows persisted by another version (a key this one does not know, a
 * value it cannot read) are skipped rather than failing every checkpoint.
 */
export const overridesFromRows = (
  rows: ReadonlyArray<{ readonly key: string; readonly value: string }>
): Settings.Values => {
  const values: Record<string, unknown> = {}
  for (const row of rows) {
    const name = Settings.names.find((each) => each.key === row.key)
    if (name === undefined) continue
    const field = name.field
    if (Settings.isChoice(field)) {
      if (Settings.isChoiceOf(field, row.value)) values[field] = row.value
    } else if (!Settings.isNumeric(field)) values[field] = row.value
    else {
      const number = Option.getOrElse(numberFromText(row.value), () => Number.NaN)
      if (Number.isFinite(number)) values[field] = clampInto(field, number)
    }
  }
  return values as Settings.Values
}
