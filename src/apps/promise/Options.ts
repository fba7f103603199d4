/**
 * The options of `createCompactor` checked before anything starts: a wrong,
 * missing or unknown option (a misspelt one, in a nested object too) is
 * refused with an `OptionError` naming it and what it accepts, rather than
 * failing later, deep in a call (or worse, being taken silently or ignored).
 * Used by `createCompactor` and by the AI SDK helpers when they are made.
 *
 * @since 0.1.0
 */
import * as Settings from "../../face/services/Settings.js"
import { OptionError } from "./Errors.js"
import type {
  AiSdkModel,
  AiSdkSummarizer,
  ChatCompletionsSummarizer,
  CompactOptions,
  CreateOptions,
  RecallOptions
} from "./Models.js"

const describe = (value: unknown): string =>
  value === null
    ? "null"
    : typeof value === "string"
    ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
    : typeof value === "number" || typeof value === "boolean" || typeof value === "undefined"
    ? String(value)
    : Array.isArray(value)
    ? "an array"
    : typeof value === "function"
    ? "a function"
    : "an object"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const optional = (option: string, value: unknown, expected: string, ok: (value: unknown) => boolean): void => {
  if (value !== undefined && !ok(value)) throw new OptionError(option, `expected ${expected}, not ${describe(value)}`)
}

const isText = (value: unknown): boolean => typeof value === "string" && value.trim() !== ""

/** How many letters, case aside, must be added, dropped or changed to make one name the other. */
const editDistance = (a: string, b: string): number => {
  const from = a.toLowerCase()
  const to = b.toLowerCase()
  let previous = Array.from({ length: to.length + 1 }, (_, i) => i)
  for (let i = 1; i <= from.length; i++) {
    const current = [i]
    for (let j = 1; j <= to.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (from[i - 1] === to[j - 1] ? 0 : 1)
      )
    }
    previous = current
  }
  return previous[to.length]!
}

/**
 * The name of `names` a misspelt `key` most likely meant: the nearest by
 * edit distance (case aside), when it is within a third of its length (at
 * least two letters); none otherwise.
 *
 * @since 0.1.0
 * @category checks
 */
export const closestName = (key: string, names: ReadonlyArray<string>): string | undefined => {
  let best: { readonly name: string; readonly distance: number } | undefined
  for (const name of names) {
    const distance = editDistance(key, name)
    if (best === undefined || distance < best.distance) best = { name, distance }
  }
  return best !== undefined && best.distance <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined
}

/**
 * Refuses the first key of `value` that is not one of `names` (whatever its
 * value), with an `OptionError` naming it under `prefix` (`summarizer.apikey`)
 * in the words the settings' check uses: what it is not, the name it most
 * likely meant (or, for a name of `elsewhere`, where it belongs), and the names.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkKnownKeys = (
  value: Record<string, unknown>,
  names: ReadonlyArray<string>,
  options: {
    readonly prefix?: string | undefined
    readonly noun?: string | undefined
    /** The names as the message lists them (default: `names`, comma-separated). */
    readonly listed?: string | undefined
    readonly elsewhere?: { readonly names: ReadonlyArray<string>; readonly place: string } | undefined
  } = {}
): void => {
  const noun = options.noun ?? "option"
  for (const key of Object.keys(value)) {
    if (names.includes(key)) continue
    const meant = closestName(key, names)
    const other = meant === undefined && options.elsewhere !== undefined
      ? closestName(key, options.elsewhere.names)
      : undefined
    const hint = meant !== undefined
      ? ` (did you mean ${meant}?)`
      : other !== undefined
      ? ` (${other === key ? other : `did you mean ${other}? that`} is an option of ${options.elsewhere!.place})`
      : ""
    throw new OptionError(
      options.prefix === undefined ? key : `${options.prefix}.${key}`,
      `not ${noun === "option" ? "an" : "a"} ${noun}${hint}; the ${noun}s are ${options.listed ?? names.join(", ")}`
    )
  }
}

// Records, so that the compiler says when an option is added to the models and not here.
const createOptionNames = Object.keys(
  {
    directory: true,
    databaseUrl: true,
    summarizer: true,
    settings: true,
    env: true,
    model: true,
    onQuestion: true,
    onFallback: true
  } satisfies Record<keyof CreateOptions, true>
)

const compactOptionNames = Object.keys(
  {
    contextWindow: true,
    sessionId: true,
    model: true,
    format: true,
    reportedContextTokens: true,
    onQuestion: true,
    signal: true,
    instructions: true
  } satisfies Record<keyof CompactOptions, true>
)

const recallOptionNames = Object.keys(
  {
    sessionId: true,
    handle: true,
    offset: true,
    length: true,
    signal: true
  } satisfies Record<keyof RecallOptions, true>
)

/**
 * Refuses a key of `compact()` or `contextOverflow()`'s options that is not
 * one (a misspelt `sesionId` would otherwise fall back to the derived session
 * silently), naming the one it most likely meant, or `createCompactor` when
 * it is one of its options.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkCompactOptions = (call: Record<string, unknown>): void =>
  checkKnownKeys(call, compactOptionNames, {
    elsewhere: { names: createOptionNames, place: "createCompactor(), not of compact" }
  })

/**
 * Refuses a key of `recall()`'s options that is not one.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkRecallOptions = (call: Record<string, unknown>): void => checkKnownKeys(call, recallOptionNames)

const serverOptionNames = Object.keys(
  {
    baseUrl: true,
    apiKey: true,
    model: true,
    timeoutMs: true,
    maxTokensField: true
  } satisfies Record<keyof ChatCompletionsSummarizer, true>
)

const aiSdkSummarizerNames = Object.keys(
  { model: true, generateText: true } satisfies Record<keyof AiSdkSummarizer, true>
)

/**
 * Whether a value is an AI SDK language model (V2, V3 or V4): what
 * `openai("…")`, `wrapLanguageModel` and the mock models give.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAiSdkModel = (value: unknown): value is AiSdkModel =>
  isRecord(value) &&
  (value["specificationVersion"] === "v2" || value["specificationVersion"] === "v3" ||
    value["specificationVersion"] === "v4") &&
  typeof value["doGenerate"] === "function"

/**
 * Refuses a URL that is not an absolute one of the protocols given.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkUrl = (option: string, value: unknown, protocols: ReadonlyArray<string>): void => {
  const expected = `an absolute ${protocols.map((protocol) => `${protocol}//`).join(" or ")} URL`
  if (typeof value !== "string") throw new OptionError(option, `expected ${expected}, not ${describe(value)}`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new OptionError(option, `expected ${expected}, not ${describe(value)}`)
  }
  if (!protocols.includes(url.protocol)) {
    throw new OptionError(option, `expected ${expected}, not a ${url.protocol} URL`)
  }
}

const summarizerNames =
  `"offline", "chat-completions", { baseUrl } of an OpenAI-compatible server, an AI SDK language model, or { model, generateText }`

/**
 * The AI SDK model of a `summarizer` option, and the `generateText` it names, when it is one.
 *
 * @since 0.1.0
 * @category checks
 */
export const aiSdkSummarizerOf = (summarizer: unknown): AiSdkSummarizer | undefined =>
  isAiSdkModel(summarizer)
    ? { model: summarizer }
    : isRecord(summarizer) && isAiSdkModel(summarizer["model"])
    ? summarizer as unknown as AiSdkSummarizer
    : undefined

const checkServer = (server: Record<string, unknown>): void => {
  checkUrl("summarizer.baseUrl", server["baseUrl"], ["http:", "https:"])
  optional("summarizer.apiKey", server["apiKey"], "a string", (value) => typeof value === "string")
  optional("summarizer.model", server["model"], "a model id", isText)
  optional(
    "summarizer.timeoutMs",
    server["timeoutMs"],
    "a positive number of milliseconds",
    (value) => typeof value === "number" && value > 0 && Number.isFinite(value)
  )
  optional(
    "summarizer.maxTokensField",
    server["maxTokensField"],
    `"max_tokens" or "max_completion_tokens"`,
    (value) => value === "max_tokens" || value === "max_completion_tokens"
  )
}

/**
 * Checks the summariser option: a name, a server or a model.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkSummarizer = (summarizer: unknown, option = "summarizer"): void => {
  if (
    summarizer === undefined || summarizer === "offline" || summarizer === "chat-completions" ||
    isAiSdkModel(summarizer)
  ) return
  if (isRecord(summarizer) && "baseUrl" in summarizer) {
    checkKnownKeys(summarizer, serverOptionNames, { prefix: option })
    return checkServer(summarizer)
  }
  if (isRecord(summarizer) && !("specificationVersion" in summarizer)) {
    // A server whose baseUrl is misspelt, or a model's options with a misspelt key: the key is named first.
    checkKnownKeys(summarizer, [...serverOptionNames, ...aiSdkSummarizerNames.filter((name) => name !== "model")], {
      prefix: option,
      listed: `${serverOptionNames.join(", ")} (a server) or ${aiSdkSummarizerNames.join(", ")} (an AI SDK model)`
    })
  }
  if (isRecord(summarizer) && "model" in summarizer) {
    if (!isAiSdkModel(summarizer["model"])) {
      throw new OptionError(
        `${option}.model`,
        `expected an AI SDK language model (ai@5, 6 or 7), not ${describe(summarizer["model"])}`
      )
    }
    optional(
      `${option}.generateText`,
      summarizer["generateText"],
      "generateText of the ai package",
      (value) => typeof value === "function"
    )
    checkKnownKeys(summarizer, aiSdkSummarizerNames, { prefix: option })
    return
  }
  if (isRecord(summarizer) && "specificationVersion" in summarizer) {
    throw new OptionError(
      option,
      `expected an AI SDK language model of specification v2, v3 or v4 (ai@5, 6 or 7), not one of ${
        describe(summarizer["specificationVersion"])
      }`
    )
  }
  throw new OptionError(option, `expected ${summarizerNames}, not ${describe(summarizer)}`)
}

const settingFields = Settings.names.map((name) => name.field)

/**
 * Checks the settings given in code and gives them as the settings' values:
 * every key a setting (camelCase, as the typed options name them), every
 * number in its range.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkSettings = (settings: unknown): Settings.Values => {
  if (settings === undefined) return {}
  if (!isRecord(settings)) {
    throw new OptionError(
      "settings",
      `expected an object of settings (${settingFields.join(", ")}), not ${describe(settings)}`
    )
  }
  checkKnownKeys(settings, settingFields, { prefix: "settings", noun: "setting" })
  const values: Record<string, unknown> = {}
  for (const { field } of Settings.names) {
    const value = settings[field]
    if (value === undefined) continue
    if (Settings.isNumeric(field)) {
      const [low, high] = Settings.ranges[field]
      if (typeof value !== "number" || !(value >= low && value <= high)) {
        throw new OptionError(`settings.${field}`, `expected ${Settings.allowed(field)}, not ${describe(value)}`)
      }
    } else if (typeof value !== "string" || (Settings.isChoice(field) && !Settings.isChoiceOf(field, value))) {
      throw new OptionError(`settings.${field}`, `expected ${Settings.allowed(field)}, not ${describe(value)}`)
    }
    values[field] = value
  }
  return values as Settings.Values
}

/**
 * Checks every option of `createCompactor` and gives the settings' values;
 * throws an `OptionError` for the first wrong one.
 *
 * @since 0.1.0
 * @category checks
 */
export const checkCreateOptions = (options: unknown): Settings.Values => {
  if (options === undefined) return {}
  if (!isRecord(options)) throw new OptionError("options", `expected an object, not ${describe(options)}`)
  checkKnownKeys(options, createOptionNames, {
    elsewhere: { names: compactOptionNames, place: "compact(), not of createCompactor" }
  })
  optional("directory", options["directory"], "the path of a folder", isText)
  if (options["databaseUrl"] !== undefined) {
    checkUrl("databaseUrl", options["databaseUrl"], ["postgres:", "postgresql:"])
  }
  checkSummarizer(options["summarizer"])
  optional("env", options["env"], "an object of environment variables", isRecord)
  optional("model", options["model"], "a model id", isText)
  optional("onQuestion", options["onQuestion"], "a function", (value) => typeof value === "function")
  optional("onFallback", options["onFallback"], "a function", (value) => typeof value === "function")
  return checkSettings(options["settings"])
}

/**
 * The server of a `summarizer` option, when it names one.
 *
 * @since 0.1.0
 * @category checks
 */
export const serverOf = (options: CreateOptions): ChatCompletionsSummarizer | undefined =>
  isRecord(options.summarizer) && "baseUrl" in options.summarizer
    ? options.summarizer as ChatCompletionsSummarizer
    : undefined
