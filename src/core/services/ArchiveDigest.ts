/**
 * The digest that names an archived entry, shared by the two archives
 * (`TranscriptArchiveFile` puts it in the file's name, `TranscriptArchiveMemory`
 * in the place a block names): the first 12 hex digits of the SHA-256 of the
 * ids of the entry's messages, one per line, so two workers archiving one
 * compaction's different spans never take each other's name.
 *
 * @since 0.1.0
 */
import * as Hash from "node:crypto"

/**
 * A short digest of the ids of an entry's messages.
 *
 * @since 0.1.0
 * @category paths
 */
export const digestOf = (messages: ReadonlyArray<{ readonly id: string }>): string =>
  Hash.createHash("sha256").update(messages.map((message) => message.id).join("\n")).digest("hex").slice(0, 12)
