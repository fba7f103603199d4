/**
 * A scratch folder for one test file: made when the file loads, removed after
 * its tests; `fresh()` gives each case a new empty folder inside it.
 */
import { afterAll } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"

export interface Scratch {
  /** The file's folder. */
  readonly root: string
  /** A new empty folder inside `root`. */
  readonly fresh: () => string
}

export const make = (name: string): Scratch => {
  const root = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), `context-compressor-${name}-`))
  afterAll(() => Fs.rmSync(root, { recursive: true, force: true }))
  let made = 0
  return {
    root,
    fresh: () => {
      const dir = NodePath.join(root, `case-${made++}`)
      Fs.mkdirSync(dir, { recursive: true })
      return dir
    }
  }
}
