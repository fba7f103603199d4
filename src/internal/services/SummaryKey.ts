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
 * The cache-schema version: bumped when the rendering of requests changes in
 * a way the prompt namespace does not see (SPEC R2.10 starts it at 4).
 *
 * @since 0.1.0
 * @category constants
 */
export const schemaVersion = 4

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
 * The cache key of a summariser request: its namespace and model, this
 * schema version, and its {@link keyText}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const keyOf = (request: RequestShape): Key => ({
  namespace: request.namespace,
  schemaVersion,
  model: request.model,
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
  [key.namespace, String(key.schemaVersion), key.model, key.request]
    .reduce((hash, part) => hash.update(`${part.length}:`).update(part), Hash.createHash("sha256"))
    .digest("hex")
