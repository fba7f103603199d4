/**
 * The main model's context-overflow errors (SPEC R2.7): whether an error a
 * provider answered with says the prompt was longer than the model's window,
 * and the window and prompt size it names when it names them, so that
 * `Compactor.contextOverflow` can believe the provider's count over its own.
 *
 * Pure: it reads what it is given (a response body as text or parsed JSON, an
 * SDK's error object, a message) and makes no request. Recognised: OpenAI's
 * `context_length_exceeded`, Anthropic's `prompt is too long`, Gemini's
 * `input token count … exceeds the maximum`, vLLM's, llama.cpp's
 * `exceed_context_size_error` and Ollama's `input length exceeds the context
 * length`, then a generic phrase list for other OpenAI-compatible servers.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * Who said it, as far as the error's shape and wording tell.
 *
 * @since 0.1.0
 * @category models
 */
export const Provider = Compat.Literals(["openai", "anthropic", "gemini", "vllm", "llama.cpp", "ollama", "unknown"])

/**
 * @since 0.1.0
 * @category models
 */
export type Provider = typeof Provider.Type

/**
 * A context-overflow error of the main model: the provider, the window the
 * error names (`limit`), the tokens it says the prompt had (`promptTokens`),
 * and its message, bounded.
 *
 * @since 0.1.0
 * @category models
 */
export class ContextOverflow extends Schema.Class<ContextOverflow>("ContextOverflow")({
  provider: Provider,
  /** The model's window in tokens, when the error names it. */
  limit: Compat.optionalKey(Schema.Int),
  /** The prompt's tokens by the provider's count, when the error names them. */
  promptTokens: Compat.optionalKey(Schema.Int),
  /** The provider's message, on one line, at most {@link maxMessageChars} characters. */
  message: Schema.String
}) {}

/**
 * The longest message a classification keeps: an error never echoes more than a bounded part of its input.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxMessageChars = 500

/** How deep into nested objects (and JSON inside strings) the fields are looked for. */
const maxDepth = 6

/** The largest text read: an error body past it is read by its first part only. */
const maxInputChars = 200_000

interface Found {
  readonly texts: Array<string>
  readonly codes: Array<string>
  readonly numbers: Map<string, number>
}

/** Reads a value as JSON when it is a JSON object or array in text. */
const parsed = (text: string): unknown => {
  const trimmed = text.trim()
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return undefined
  try {
    return JSON.parse(trimmed.slice(0, maxInputChars))
  } catch {
    return undefined
  }
}

const codeKeys = new Set(["code", "type", "status", "reason", "object"])
const numberKeys = new Set(["n_prompt_tokens", "n_ctx", "limit", "max_tokens", "maxTokens"])

/** Collects the messages, codes and named numbers of an error, whatever wraps them. */
const collect = (value: unknown, found: Found, depth: number, seen: Set<unknown>): void => {
  if (depth > maxDepth || value === null || value === undefined) return
  if (typeof value === "string") {
    const inner = parsed(value)
    if (inner !== undefined) collect(inner, found, depth + 1, seen)
    else found.texts.push(value.slice(0, maxInputChars))
    return
  }
  if (typeof value !== "object" || seen.has(value)) return
  seen.add(value)
  if (Array.isArray(value)) {
    for (const item of value.slice(0, 20)) collect(item, found, depth + 1, seen)
    return
  }
  if (value instanceof Error) {
    collect(value.message, found, depth + 1, seen)
    // SDK errors carry the body beside the message: `error`, `body`, `response.data`, `cause`.
    const carried = value as unknown as Record<string, unknown>
    for (const key of ["error", "body", "response", "data", "cause", "status", "code", "type"]) {
      collect(carried[key], found, depth + 1, seen)
    }
    return
  }
  for (const [key, field] of Object.entries(value as Record<string, unknown>).slice(0, 50)) {
    if (typeof field === "number" && Number.isFinite(field)) {
      if (numberKeys.has(key)) found.numbers.set(key, field)
      continue
    }
    if (typeof field === "string" && codeKeys.has(key)) {
      found.codes.push(field)
      continue
    }
    if (
      key === "message" || key === "error" || key === "detail" || key === "errors" || key === "body" ||
      key === "data" || key === "response" || key === "cause" || typeof field === "object"
    ) {
      collect(field, found, depth + 1, seen)
    }
  }
}

const integer = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const n = Number(text.replaceAll(",", ""))
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

interface Wording {
  readonly provider: Provider
  readonly pattern: RegExp
  /** Which groups of the match are the prompt's tokens and the limit. */
  readonly prompt?: number
  readonly limit?: number
}

// Most specific first: the first wording that matches decides the provider and the numbers.
const wordings: ReadonlyArray<Wording> = [
  // Anthropic, 400 invalid_request_error: "prompt is too long: 208310 tokens > 200000 maximum"
  // (https://docs.anthropic.com/en/api/errors; the wording as reported in anthropics/claude-code#14195).
  {
    provider: "anthropic",
    pattern: /prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)\s*maximum/i,
    prompt: 1,
    limit: 2
  },
  // Anthropic, when the input and max_tokens together pass the window:
  // "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again".
  {
    provider: "anthropic",
    pattern: /input length and `?max_tokens`? exceed context limit:\s*([\d,]+)\s*\+\s*[\d,]+\s*>\s*([\d,]+)/i,
    prompt: 1,
    limit: 2
  },
  { provider: "anthropic", pattern: /prompt is too long/i },
  // Gemini API, 400 INVALID_ARGUMENT: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048576)."
  // (as reported in google-gemini/gemini-cli#4231, #6678).
  {
    provider: "gemini",
    pattern: /input token count \(?([\d,]+)\)? exceeds the maximum number of tokens allowed \(?([\d,]+)\)?/i,
    prompt: 1,
    limit: 2
  },
  // Vertex AI: "Unable to submit request because the input token count is 1050000 but model only supports up to 1048576."
  {
    provider: "gemini",
    pattern: /input token count is ([\d,]+) but (?:the )?model only supports up to ([\d,]+)/i,
    prompt: 1,
    limit: 2
  },
  // llama.cpp server, 400 exceed_context_size_error: "request (4476 tokens) exceeds the available context size (4096 tokens)"
  // (tools/server/server.cpp; n_prompt_tokens and n_ctx beside the message).
  {
    provider: "llama.cpp",
    pattern: /request \(([\d,]+) tokens\) exceeds the available context size \(([\d,]+) tokens\)/i,
    prompt: 1,
    limit: 2
  },
  { provider: "llama.cpp", pattern: /exceeds the available context size|exceed_context_size/i },
  // vLLM (vllm/entrypoints/openai/serving_engine.py): "This model's maximum context length is 4096 tokens. However, you requested
  // 4200 tokens (3200 in the messages, 1000 in the completion)", or "... However, your request has 5000 input tokens."
  {
    provider: "openai",
    pattern:
      /maximum context length is ([\d,]+) tokens\. However, you requested [\d,]+ tokens \(([\d,]+) in the messages/i,
    limit: 1,
    prompt: 2
  },
  {
    provider: "openai",
    pattern: /maximum context length is ([\d,]+) tokens\. However, your request has ([\d,]+) input tokens/i,
    limit: 1,
    prompt: 2
  },
  // OpenAI chat completions, 400 context_length_exceeded: "This model's maximum context length is 8192 tokens. However, your
  // messages resulted in 8765 tokens. Please reduce the length of the messages." (platform.openai.com/docs/guides/error-codes)
  {
    provider: "openai",
    pattern:
      /maximum context length is ([\d,]+) tokens\. However, (?:your messages resulted in|you requested) ([\d,]+) tokens/i,
    limit: 1,
    prompt: 2
  },
  { provider: "openai", pattern: /maximum context length is ([\d,]+) tokens/i, limit: 1 },
  // vLLM's engine: "The prompt (total length 25938) is too long to fit into the model (context length 4096)" (vllm-project/vllm#12165),
  // and "The decoder prompt (length 5000) is longer than the maximum model length of 4096".
  {
    provider: "vllm",
    pattern: /prompt \(total length ([\d,]+)\) is too long to fit into the model \(context length ([\d,]+)\)/i,
    prompt: 1,
    limit: 2
  },
  {
    provider: "vllm",
    pattern: /prompt \(length ([\d,]+)\) is longer than the maximum model length of ([\d,]+)/i,
    prompt: 1,
    limit: 2
  },
  // OpenAI's Responses API: "Your input exceeds the context window of this model. Please adjust your input and try again."
  { provider: "openai", pattern: /input exceeds the context window/i },
  // Ollama: "the input length exceeds the context length" (its API and embeddings with truncate off; ollama/ollama#2208).
  { provider: "ollama", pattern: /input length exceeds the context length|exceeds the context length/i }
]

// The phrases other OpenAI-compatible servers use (the same list the chat-completions summariser reads).
const generic =
  /context_length_exceeded|maximum context length|context length (?:is )?exceeded|exceeds? (?:the )?(?:available |maximum |model's )?context|context window (?:is )?(?:full|exceeded)|too many tokens|input is too long|reduce the length of the (?:messages|prompt|input)/i

// Not an overflow of the prompt: the requested completion alone is over the model's output limit.
const outputLimitOnly = /max_tokens:?\s*[\d,]+\s*>\s*[\d,]+, which is the maximum allowed number of output tokens/i

const oneLine = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length <= maxMessageChars ? line : `${line.slice(0, maxMessageChars - 1)}…`
}

/**
 * Classifies an error of the main model: `Some` when it says the prompt was
 * longer than the model's window, with the limit and prompt tokens it names;
 * `None` for anything else (a rate limit, an output-token limit, a server
 * error). Takes a response body (text or parsed JSON), an SDK error object or
 * a message; never throws, whatever it is given.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import { Overflow } from "context-compressor"
 *
 * const body = {
 *   error: {
 *     message: "This model's maximum context length is 16000 tokens. However, your messages resulted in 40123 tokens.",
 *     code: "context_length_exceeded"
 *   }
 * }
 * assert.ok(Option.isSome(Overflow.classify(body)))
 * assert.strictEqual(Overflow.isContextOverflow("Rate limit reached for requests"), false)
 * ```
 *
 * @since 0.1.0
 * @category classification
 */
export const classify = (error: unknown): Option.Option<ContextOverflow> => {
  const found: Found = { texts: [], codes: [], numbers: new Map() }
  try {
    collect(error, found, 0, new Set())
  } catch {
    return Option.none()
  }
  const codes = found.codes.map((code) => code.toLowerCase())
  const text = found.texts.join("\n")
  const message = oneLine(found.texts.find((t) => t.trim() !== "") ?? codes.join(" "))
  const nCtx = found.numbers.get("n_ctx")
  const nPrompt = found.numbers.get("n_prompt_tokens")
  const make = (provider: Provider, limit: number | undefined, promptTokens: number | undefined) =>
    Option.some(
      new ContextOverflow({
        provider,
        message,
        ...(limit === undefined ? {} : { limit }),
        ...(promptTokens === undefined ? {} : { promptTokens })
      })
    )
  if (codes.includes("exceed_context_size_error")) {
    const match = /\(([\d,]+) tokens\) exceeds the available context size \(([\d,]+) tokens\)/i.exec(text)
    return make("llama.cpp", nCtx ?? integer(match?.[2]), nPrompt ?? integer(match?.[1]))
  }
  if (outputLimitOnly.test(text) && !/prompt is too long|context length/i.test(text)) return Option.none()
  for (const wording of wordings) {
    const match = wording.pattern.exec(text)
    if (match === null) continue
    const limit = wording.limit === undefined ? undefined : integer(match[wording.limit])
    const prompt = wording.prompt === undefined ? undefined : integer(match[wording.prompt])
    // vLLM answers in OpenAI's words; its bodies say BadRequestError, OpenAI's invalid_request_error.
    const provider = wording.provider === "openai" && codes.some((code) => code === "badrequesterror")
      ? "vllm"
      : wording.provider
    return make(provider, limit, prompt)
  }
  if (codes.includes("context_length_exceeded")) return make("openai", undefined, undefined)
  if (generic.test(text) || codes.some((code) => generic.test(code))) return make("unknown", nCtx, nPrompt)
  return Option.none()
}

/**
 * Whether an error of the main model is a context overflow ({@link classify} found one).
 *
 * @since 0.1.0
 * @category classification
 */
export const isContextOverflow = (error: unknown): boolean => Option.isSome(classify(error))
