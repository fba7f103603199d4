/**
 * The last view of a session's shared memory (`SessionMemory`, its codec) in
 * the shared core: each message of the view's base as its fingerprint (kind,
 * id, text length and a digest of its content, `SameMessage.digestOf`), and the view
 * those fingerprints and the changed messages stand for, matched to the view a
 * transcript's state gives now (`hydrate`), which the restore stage takes as
 * the sent prefix.
 *
 * @since 0.1.0
 */
import * as Transcript from "../transcript/TranscriptData.js"
import * as SameMessage from "./SameMessage.js"

/**
 * A message of the last view's base as its fingerprint: what the sent-prefix
 * rule compares: kind, id, text length and the digest of its content
 * (`SameMessage.digestOf`). A fingerprint written without a digest (by an
 * older version) matches no message: that head is sent again as it is now.
 *
 * @since 0.1.0
 * @category models
 */
export type Fingerprint = readonly [tag: string, id: string, length: number, contentDigest?: string]

/**
 * The last view of a memory, still to be matched to a transcript's view: the
 * base's fingerprints, and the view's messages that are not the base's at
 * their position, `[position, message]`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PendingView {
  readonly base: ReadonlyArray<Fingerprint>
  readonly changed: ReadonlyArray<readonly [number, Transcript.Message]>
}

/**
 * The fingerprint of a message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fingerprintOf = (
  message: Transcript.Message,
  digests: SameMessage.Digests = SameMessage.digests()
): Fingerprint => [message._tag, message.id, Transcript.text(message).length, digests.of(message)]

const matches = (message: Transcript.Message, fingerprint: Fingerprint, digests: SameMessage.Digests): boolean => {
  const [tag, id, length, contentDigest] = fingerprint
  return message._tag === tag && message.id === id && Transcript.text(message).length === length &&
    contentDigest !== undefined && contentDigest === digests.of(message)
}

/** The id of a base message no view's message is: it stands for the base's messages past the part that matched. */
const unmatchedId = "\u0000not-in-this-transcript"

/**
 * The last view of a memory over the view a transcript's state gives now:
 * the base is that view's messages while they match the fingerprints (the
 * rest stand in as messages no view holds, of the view's face, so the base
 * keeps its length), and the view sent is the base with the changed messages
 * in their place.
 *
 * @since 0.1.0
 * @category restore
 */
export const hydrate = (
  pending: PendingView,
  view: Transcript.Transcript,
  kit: Transcript.Kit,
  digests: SameMessage.Digests = SameMessage.digests()
): { readonly base: Transcript.Transcript; readonly sent: Transcript.Transcript } => {
  let matched = 0
  while (
    matched < Math.min(view.length, pending.base.length) && matches(view[matched]!, pending.base[matched]!, digests)
  ) {
    matched++
  }
  const unmatched = kit.userMessage({ id: unmatchedId, content: "" })
  const base = [...view.slice(0, matched), ...Array.from({ length: pending.base.length - matched }, () => unmatched)]
  const sent = [...base]
  for (const [index, message] of pending.changed) if (index < sent.length) sent[index] = message
  return { base, sent }
}
