/**
 * The summary cache's key in the shared core (docs/effect4.md): the text of
 * a request a key holds, the key's parts and its digest, the same on both
 * faces, so a summary cached through one face is found through the other.
 * `SummaryCache` gives these under its names (and remembers each key's digest).
 *
 * @since 0.1.0
 */
import * as Hash from "node:crypto"
import * as MessageText from "./MessageText.js"

/**
 * The cache-schema version: bumped when the rendering of requests or the key's
 * parts change in a way the prompt namespace does not see (SPEC R2.10 starts
 * it at 4; 5 added the summariser's identity).
 *
 * @since 0.1.0
 * @category constants
 */
export const schemaVersion = 5

/**
 * Who makes a summary, as its cache key names it: a summary made by one
 * summariser is never given for another's request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Identity {
  /** The kind of summariser: `offline`, `chat-completions`, `language-model`, `ai-sdk`, `scripted`, or a name of one's own. */
  readonly kind: string
  /** The model it asks when it chooses its own (absent when it asks the request's, which the key holds already). */
  readonly model?: string | undefined
  /** Where it sends its requests: a base URL as {@link endpointOf} gives it, never with a key or password. */
  readonly endpoint?: string | undefined
  /** The version of what it adds to a request (its own framing, prompt or writing): changed when that changes. */
  readonly promptVersion?: string | undefined
}

/**
 * The identity of a summariser that does not say who it is (one made with
 * `Summarizer.make` and no `identity`).
 *
 * @since 0.1.0
 * @category constants
 */
export const anonymous: Identity = { kind: "custom" }

/**
 * A base URL as an identity's endpoint: its origin and path, without the
 * user and password, the query and the fragment a key might be written in,
 * or a trailing slash. A text that is not a URL is named by a SHA-256 of it,
 * never given as it is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const endpointOf = (baseUrl: string): string => {
  try {
    const url = new URL(baseUrl)
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`
  } catch {
    return `sha256:${Hash.createHash("sha256").update(baseUrl).digest("hex").slice(0, 16)}`
  }
}

/**
 * An identity as one text, each part in its place (an absent part is `null`).
 *
 * @since 0.1.0
 * @category getters
 */
export const identityText = (identity: Identity): string =>
  JSON.stringify([identity.kind, identity.model ?? null, identity.endpoint ?? null, identity.promptVersion ?? null])

/**
 * The parts of a cache key.
 *
 * @since 0.1.0
 * @category models
 */
export interface Key {
  readonly namespace: string
  readonly schemaVersion: number
  readonly model: string
  /** The summariser that makes the summary. */
  readonly summarizer: Identity
  /** The rendered request ({@link keyText}): system instruction and prompt, after a shared prefix. */
  readonly request: string
}

/**
 * A summariser request as its key reads it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestShape {
  readonly namespace: string
  readonly model: string
  readonly system: string
  readonly prompt: string
  readonly prefix?: ReadonlyArray<MessageText.MessageShape> | undefined
}

/**
 * The text of a request that its cache key holds: a delimited request's
 * instruction and prompt; a shared-prefix request's prefix (each message's
 * kind, id and text) before them.
 *
 * @since 0.1.0
 * @category getters
 */
export const keyText = (request: RequestShape): string =>
  request.prefix === undefined
    ? `${request.system}\n\n${request.prompt}`
    : `${
      request.prefix.map((message) => `${message._tag}\u0000${message.id}\u0000${MessageText.text(message)}`).join(
        "\u0001"
      )
    }\n\n${request.system}\n\n${request.prompt}`

/**
 * The cache key of a summariser request made by `summarizer` (default
 * {@link anonymous}): its namespace and model, this schema version, the
 * summariser's identity, and its {@link keyText}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const keyOf = (request: RequestShape, summarizer: Identity = anonymous): Key => ({
  namespace: request.namespace,
  schemaVersion,
  model: request.model,
  summarizer,
  request: keyText(request)
})

/**
 * The key as one string: a SHA-256 over its parts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const digestOf = (key: Key): string =>
  // Each part is prefixed by its length, so no two keys share a digest input;
  // the request (often megabytes) is hashed as it is, not copied into a JSON string.
  [key.namespace, String(key.schemaVersion), key.model, identityText(key.summarizer), key.request]
    .reduce((hash, part) => hash.update(`${part.length}:`).update(part), Hash.createHash("sha256"))
    .digest("hex")
