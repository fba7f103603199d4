/**
 * The inspector page in a real headless Chromium (Debian's `chromium`, driven
 * by playwright-core) against a real server: the settings card, the
 * inspector, the error banner, the token. Screenshots go to
 * test-artifacts/inspector/. Skipped, saying why, where Chromium is absent.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import * as Server from "../../src/apps/http/HttpServer.js"
import * as Histories from "../support/Histories.js"

const repository = NodeUrl.fileURLToPath(new URL("../..", import.meta.url))

const chromiumPath = process.env["CONTEXT_COMPRESSOR_CHROMIUM"] ?? "/usr/bin/chromium"
const artifacts = NodePath.join(repository, "test-artifacts/inspector")
const examplePath = NodePath.join(repository, "examples/session/agent-session.json")
const session: ReadonlyArray<Record<string, unknown>> = JSON.parse(Fs.readFileSync(examplePath, "utf8"))

interface Running {
  readonly base: string
  readonly directory: string
  readonly close: () => Promise<void>
}

/** A server on 127.0.0.1 and a free port over a new folder, until `close`. */
const startServer = async (options: Server.Options = {}): Promise<Running> => {
  const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-e2e-"))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(Server.layerNode({ port: 0, directory, env: () => ({}), ...options }), scope)
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
  return {
    base: `http://127.0.0.1:${address.port}`,
    directory,
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  }
}

const launch = async (): Promise<{ readonly context: BrowserContext; readonly profile: string }> => {
  const profile = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
  return { context, profile }
}

const textOf = async (page: Page, selector: string): Promise<string> => (await page.textContent(selector)) ?? ""

// The page's globals through `globalThis`: this project's typecheck has no DOM library. Functions, not
// strings: the page's content security policy refuses to evaluate strings.
// Polled on an interval, not on animation frames: a page that is not in front may get no frames.
const waitForValue = (page: Page, selector: string, value: string) =>
  page.waitForFunction(
    ([selector, value]) => (globalThis as any).document.querySelector(selector).value === value,
    [selector, value] as const,
    { polling: 100 }
  )
    .catch(async (error) => {
      throw new Error(
        `${selector} never had the value ${JSON.stringify(value)}: it has ${
          JSON.stringify(await page.inputValue(selector).catch(() => "?"))
        }; ${await statusOf(page)} (${error.message.split("\n")[0]})`
      )
    })

const waitForText = (page: Page, selector: string, text: string) =>
  page.waitForFunction(
    ([selector, text]) => (globalThis as any).document.querySelector(selector).textContent.includes(text),
    [selector, text] as const,
    { polling: 100 }
  )
    .catch(async (error) => {
      throw new Error(
        `${selector} never showed ${JSON.stringify(text)}; ${await statusOf(page)} (${error.message.split("\n")[0]})`
      )
    })

/** What the page's status lines say, for a wait that failed. */
const statusOf = async (page: Page): Promise<string> => {
  const read = async (selector: string) =>
    JSON.stringify(await page.textContent(selector, { timeout: 1_000 }).catch(() => "?"))
  return `settings: ${await read("#settings-status")}, events: ${await read("#events-status")}, error: ${await read(
    "#error"
  )}`
}

/** Ends within `ms`, or fails saying what did not. */
const within = <A>(ms: number, what: string, promise: Promise<A>): Promise<A> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms).unref()
    )
  ])

const shot = (page: Page, name: string) => page.screenshot({ path: NodePath.join(artifacts, `${name}.png`) })

if (!Fs.existsSync(chromiumPath)) {
  describe("the inspector page in Chromium", () => {
    it.skip(`needs Chromium at ${chromiumPath} (apt-get install -y chromium, or set CONTEXT_COMPRESSOR_CHROMIUM)`, () => {})
  })
} else {
  describe("the inspector page in Chromium", () => {
    let server: Running
    let browser: { readonly context: BrowserContext; readonly profile: string }
    let page: Page
    const errors: Array<string> = []

    beforeAll(async () => {
      Fs.mkdirSync(artifacts, { recursive: true })
      ;[server, browser] = await Promise.all([startServer(), launch()])
      page = browser.context.pages()[0] ?? (await browser.context.newPage())
      page.setDefaultTimeout(10_000)
      page.on("pageerror", (error) => errors.push(error.message))
      // A refused request is logged by Chromium as a failed load; anything else (a policy violation) is a fault.
      page.on("console", (message) => {
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
          errors.push(message.text())
        }
      })
    }, 30_000)

    afterAll(async () => {
      await browser?.context.close()
      await server?.close()
      if (browser !== undefined) Fs.rmSync(browser.profile, { recursive: true, force: true })
    })

    it("the settings card: a change is clamped, persisted (the API and a reload show it) and applied to the next compaction", async () => {
      await page.goto(server.base)
      await waitForValue(page, "#trigger-pct", "80")
      assert.strictEqual(await page.inputValue("#cap-tokens"), "250000")

      await page.fill("#trigger-pct", "99")
      await page.click("#settings-save")
      await waitForText(page, "#settings-status", "Clamped")
      assert.include(await textOf(page, "#settings-status"), "trigger_pct 99 → 95")
      assert.strictEqual(await page.inputValue("#trigger-pct"), "95")

      await page.fill("#trigger-pct", "50")
      await page.fill("#summarizer-model", "small-model")
      await page.click("#settings-save")
      await waitForText(page, "#settings-status", "trigger 50 %")
      await page.locator("#settings-card").screenshot({ path: NodePath.join(artifacts, "settings-card.png") })

      const persisted = await (await fetch(`${server.base}/v1/settings/compaction`)).json() as any
      assert.strictEqual(persisted.settings.trigger_pct, 50)
      assert.deepStrictEqual(persisted.overrides, { trigger_pct: 50, summarizer_model: "small-model" })

      await page.reload()
      await waitForValue(page, "#trigger-pct", "50")
      assert.strictEqual(await page.inputValue("#summarizer-model"), "small-model")
      assert.isTrue(await page.locator("#trigger-pct").evaluate((input) => input.classList.contains("overridden")))

      // The next compaction runs at 50 % of the window.
      await page.fill("#transcript", JSON.stringify(session.slice(0, 80)))
      await page.fill("#window", "64000")
      await page.fill("#session-id", "settings-applied")
      await page.click("#compact")
      await page.waitForSelector("#results:not([hidden])")
      assert.strictEqual(await textOf(page, "#report-trigger"), "32,000")
      assert.include(await textOf(page, "#summary"), "messages compacted")
    })

    it("a pasted transcript: the outbound view with the context-compacted divider before the block, the report, the tool results and the chart", async () => {
      const pasted = session.slice(0, 120)
      await page.fill("#transcript", JSON.stringify(pasted))
      await page.fill("#window", "64000")
      await page.fill("#session-id", "pasted")
      await page.click("#compact")
      await waitForText(page, "#report", "pasted")

      const divider = page.locator("[data-testid=compacted-divider]")
      assert.strictEqual(await divider.count(), 1)
      assert.isTrue(await divider.isVisible())
      assert.include(await divider.textContent(), "context compacted")
      const block = page.locator("#compacted-block")
      assert.isTrue(await block.isVisible())
      assert.match(await block.locator("pre").textContent() ?? "", /^# Context compacted/)
      // The divider is right before the block in the view.
      assert.isTrue(
        await block.evaluate((element) =>
          element.previousElementSibling?.getAttribute("data-testid") === "compacted-divider"
        )
      )

      assert.match(
        await textOf(page, "#summary"),
        /120 → \d+ messages, [\d,]+ → [\d,]+ tokens \(trigger 32,000\); \d+ messages compacted/
      )
      const toolRows = page.locator("#tool-results tbody tr")
      assert.strictEqual(await toolRows.count(), pasted.filter((message) => message["role"] === "tool").length)
      assert.isAbove(await page.locator("#tool-results tbody tr.in-block").count(), 0)
      const viewLength = await page.locator("#view li.message").count()
      assert.strictEqual(
        await page.locator("#chart svg rect.before").count(),
        viewLength + 2,
        "a bar per view message, the whole view, the legend"
      )
      await waitForText(page, "#events", "pasted: compaction #1")

      await shot(page, "inspector-report")
      await divider.scrollIntoViewIfNeeded()
      await page.mouse.wheel(0, -120)
      await shot(page, "inspector-divider")
      await page.locator("#tool-results").scrollIntoViewIfNeeded()
      await shot(page, "inspector-tool-results")
    })

    it("a transcript file dropped on the inspector is read and compacted whole", async () => {
      const text = Fs.readFileSync(examplePath, "utf8")
      const dataTransfer = await page.evaluateHandle((text) => {
        const page = globalThis as any
        const transfer = new page.DataTransfer()
        transfer.items.add(new page.File([text], "agent-session.json", { type: "application/json" }))
        return transfer
      }, text)
      await page.locator("#drop-zone").dispatchEvent("drop", { dataTransfer })
      await page.waitForFunction(
        (length) => (globalThis as any).document.querySelector("#transcript").value.length === length,
        text.length,
        { polling: 100 }
      )
      await page.fill("#window", "128000")
      await page.fill("#session-id", "dropped")
      await page.click("#compact")
      await waitForText(page, "#report", "dropped")
      assert.strictEqual(await textOf(page, "#report-trigger"), "64,000")
      assert.strictEqual(
        await page.locator("#tool-results tbody tr").count(),
        session.filter((message) => message["role"] === "tool").length
      )
      await page.locator("#chart").screenshot({ path: NodePath.join(artifacts, "inspector-chart.png") })
    })

    it("a view changed without a compaction (a clipped newest result, a lost result answered) shows its ladder steps and repairs in the summary and the report", async () => {
      const huge = Histories.toOpenAiChat(Histories.hugeNewestResult)
      await page.fill("#transcript", JSON.stringify(huge))
      // 64,000: at the trigger of 50 % the settings test left, the reply reserve is not scaled.
      await page.fill("#window", "64000")
      await page.fill("#session-id", "clipped-tail")
      await page.click("#compact")
      await waitForText(page, "#report", "clipped-tail")
      const last = `m${huge.length - 1}`
      assert.include(await textOf(page, "#summary"), `not compacted; in the view: 1 message clipped (${last})`)
      assert.include(await textOf(page, "#report-ladder"), `clip-messages: 1 message clipped (${last})`)
      assert.strictEqual(await textOf(page, "#report-repairs"), "none")
      await page.locator("#report").screenshot({ path: NodePath.join(artifacts, "inspector-ladder.png") })

      await page.fill("#transcript", JSON.stringify(Histories.toOpenAiChat(Histories.lostResult)))
      await page.fill("#session-id", "lost-result")
      await page.click("#compact")
      await waitForText(page, "#report", "lost-result")
      assert.include(await textOf(page, "#summary"), "not compacted; in the view: 1 lost tool result answered")
      assert.include(await textOf(page, "#report-repairs"), "lost-result of call call_1")
      assert.strictEqual(await textOf(page, "#report-ladder"), "none: the view fit as it was")
    })

    it("a bad transcript shows an error on the page, naming the problem, and the page recovers", async () => {
      await page.fill("#transcript", "{\"hello\": \"world\"}")
      await page.click("#compact")
      await page.waitForSelector("#error:not([hidden])")
      assert.include(await textOf(page, "#error"), "InvalidTranscript: not a transcript in any known format")
      assert.isTrue(await page.locator("#results").isHidden())
      await page.locator("#error").scrollIntoViewIfNeeded()
      await shot(page, "inspector-error")

      await page.fill("#transcript", "[{\"role\": \"user\", \"content\": \"unfinished")
      await page.click("#compact")
      await waitForText(page, "#error", "not JSON")

      await page.fill("#transcript", JSON.stringify(session.slice(0, 6)))
      await page.click("#compact")
      await page.waitForSelector("#results:not([hidden])")
      assert.isTrue(await page.locator("#error").isHidden())
      assert.include(await textOf(page, "#summary"), "under the trigger: unchanged")
      assert.deepStrictEqual(errors, [], "no script errors or policy violations on the page")
    })

    it("with a token, the page asks for it and sends it with every call", async () => {
      const guarded = await within(
        15_000,
        "starting the guarded server",
        startServer({ token: Redacted.make("e2e-token") })
      )
      const other = await within(15_000, "opening a page", browser.context.newPage())
      other.setDefaultTimeout(10_000)
      try {
        await other.goto(guarded.base)
        await waitForText(other, "#settings-status", "token")
        assert.strictEqual(await other.inputValue("#trigger-pct"), "")
        await other.fill("#token", "e2e-token")
        await other.press("#token", "Enter")
        await waitForValue(other, "#trigger-pct", "80")
        await waitForText(other, "#events-status", "(live)")
        await other.screenshot({ path: NodePath.join(artifacts, "token.png") })
      } finally {
        await within(10_000, "closing the page", other.close())
        await within(10_000, "closing the guarded server", guarded.close())
      }
    })
  })
}
