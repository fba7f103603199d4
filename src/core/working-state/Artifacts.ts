/**
 * The artifacts a tool result names: paths it says it wrote or saved, and an
 * envelope's content and plan paths.
 *
 * @since 0.1.0
 */
import * as Envelope from "../reduce/EnvelopeData.js"
import { isKeyedPath, looksLikeFilePath } from "./FilePaths.js"
import { scanWindow, walk } from "./ToolResultRead.js"

const artifactKeys: ReadonlySet<string> = new Set([
  "contentPath",
  "planPath",
  "reportPath",
  "outputPath",
  "artifactPath",
  "screenshotPath",
  "savedPath",
  "exportPath"
])

const artifactPattern =
  /\b(?:wrote|written|saved|created|generated|exported|stored)\b[^\n]{0,48}?[\s:`'"(]((?:~|\.{1,2})?\/?[\w.\-+@]+(?:\/[\w.\-+@]+)*\.[A-Za-z][A-Za-z0-9]{0,9})(?![\w/])/gi

/** Paths a tool result says it wrote, created or saved, and the content and plan paths of an envelope. */
export const resultArtifacts = (content: string, envelope: Envelope.Envelope | undefined): ReadonlyArray<string> => {
  const found: Array<string> = []
  if (envelope !== undefined) {
    walk(envelope, (key, node) => {
      if (artifactKeys.has(key) && typeof node === "string" && isKeyedPath(node)) found.push(node)
    })
    return found
  }
  for (const match of scanWindow(content).matchAll(artifactPattern)) {
    if (looksLikeFilePath(match[1]!)) found.push(match[1]!)
  }
  return found
}
