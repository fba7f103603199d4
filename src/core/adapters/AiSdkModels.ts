/**
 * The messages of the Vercel AI SDK as the adapters read them: v5
 * `ModelMessage`s and their parts (AI SDK v4's `args`, `result` and
 * `mimeType` read too), described here as types so that the `ai` package is
 * not a dependency. Both faces' `AiSdkMessages` export them. No Effect import.
 *
 * @since 0.1.0
 */

/**
 * Options for a provider, by provider name.
 *
 * @since 0.1.0
 * @category models
 */
export type ProviderOptions = Record<string, Record<string, unknown>>

/**
 * A JSON value, as tool inputs and JSON outputs hold.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONValue =
  | null
  | string
  | number
  | boolean
  | { readonly [key: string]: JSONValue }
  | ReadonlyArray<JSONValue>

/**
 * Text of a user or assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface TextPart {
  readonly type: "text"
  readonly text: string
  readonly providerOptions?: ProviderOptions
}

/**
 * An image of a user message.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImagePart {
  readonly type: "image"
  readonly image: string | URL | Uint8Array | ArrayBuffer
  readonly mediaType?: string
  readonly providerOptions?: ProviderOptions
}

/**
 * A file of a user or assistant message (`mimeType` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export interface FilePart {
  readonly type: "file"
  readonly data: string | URL | Uint8Array | ArrayBuffer
  readonly filename?: string
  readonly mediaType: string
  readonly providerOptions?: ProviderOptions
}

/**
 * The model's reasoning, in an assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReasoningPart {
  readonly type: "reasoning"
  readonly text: string
  readonly providerOptions?: ProviderOptions
}

/**
 * A tool call of an assistant message (`args` instead of `input` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCallPart {
  readonly type: "tool-call"
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  readonly providerExecuted?: boolean
  readonly providerOptions?: ProviderOptions
}

/**
 * What a tool returned.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResultOutput =
  | { readonly type: "text"; readonly value: string }
  | { readonly type: "json"; readonly value: JSONValue }
  | { readonly type: "error-text"; readonly value: string }
  | { readonly type: "error-json"; readonly value: JSONValue }
  | {
    readonly type: "content"
    readonly value: ReadonlyArray<
      { readonly type: "text"; readonly text: string } | {
        readonly type: "media"
        readonly data: string
        readonly mediaType: string
      }
    >
  }

/**
 * The result of a tool call (`result` instead of `output` in AI SDK v4).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResultPart {
  readonly type: "tool-result"
  readonly toolCallId: string
  readonly toolName: string
  readonly output: ToolResultOutput
  readonly providerOptions?: ProviderOptions
}

/**
 * A system message.
 *
 * @since 0.1.0
 * @category models
 */
export interface SystemModelMessage {
  readonly role: "system"
  readonly content: string
  readonly providerOptions?: ProviderOptions
}

/**
 * A user message.
 *
 * @since 0.1.0
 * @category models
 */
export interface UserModelMessage {
  readonly role: "user"
  readonly content: string | ReadonlyArray<TextPart | ImagePart | FilePart>
  readonly providerOptions?: ProviderOptions
}

/**
 * An assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface AssistantModelMessage {
  readonly role: "assistant"
  readonly content: string | ReadonlyArray<TextPart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart>
  readonly providerOptions?: ProviderOptions
}

/**
 * A tool message: the results of the calls of the assistant message before it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolModelMessage {
  readonly role: "tool"
  readonly content: ReadonlyArray<ToolResultPart>
  readonly providerOptions?: ProviderOptions
}

/**
 * An AI SDK v5 `ModelMessage`.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelMessage = SystemModelMessage | UserModelMessage | AssistantModelMessage | ToolModelMessage
