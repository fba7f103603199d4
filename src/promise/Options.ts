/**
 * The options of `createCompactor` checked before anything starts: a wrong
 * or missing option is refused with an `OptionError` naming it and what it
 * accepts, rather than failing later, deep in a call (or worse, being taken
 * silently). Used by `createCompactor` and by the AI SDK helpers when they
 * are made.
 *
 * @since 0.1.0
 */
import * as Settings from "../../services/Settings.js"
import { OptionError } from "./Errors.js"
import type { AiSdkModel, AiSdkSummarizer, ChatCompletionsSummarizer, CreateOptions } from "./Models.js"

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
  if (isRecord(summarizer) && "model" in summarizer && !("baseUrl" in summarizer)) {
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
    return
  }
  if (isRecord(summarizer) && "baseUrl" in summarizer) return checkServer(summarizer)
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
  const values: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue
    const name = Settings.names.find((each) => each.field === key)
    if (name === undefined) {
      throw new OptionError(`settings.${key}`, `not a setting; the settings are ${settingFields.join(", ")}`)
    }
    const field = name.field
    if (Settings.isNumeric(field)) {
      const [low, high] = Settings.ranges[field]
      if (typeof value !== "number" || !(value >= low && value <= high)) {
        throw new OptionError(`settings.${key}`, `expected ${Settings.allowed(field)}, not ${describe(value)}`)
      }
    } else if (typeof value !== "string" || (Settings.isChoice(field) && !Settings.isChoiceOf(field, value))) {
      throw new OptionError(`settings.${key}`, `expected ${Settings.allowed(field)}, not ${describe(value)}`)
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
