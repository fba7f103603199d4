// The page of `context-compressor serve`: the settings card, the inspector and
// the list of compactions, over the HTTP API of the same server (docs/http.md).
// Plain DOM, no framework, nothing loaded from the network.

const $ = (id) => document.getElementById(id)
const tokenKey = "context-compressor.token"
const svgNs = "http://www.w3.org/2000/svg"

const number = (n) => Math.round(n).toLocaleString("en-US")

const element = (tag, options = {}, ...children) => {
  const node = document.createElement(tag)
  if (options.className !== undefined) node.className = options.className
  if (options.text !== undefined) node.textContent = options.text
  for (const [name, value] of Object.entries(options.attributes ?? {})) node.setAttribute(name, value)
  for (const child of children) node.append(child)
  return node
}

const svg = (tag, attributes = {}, text) => {
  const node = document.createElementNS(svgNs, tag)
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value))
  if (text !== undefined) node.textContent = text
  return node
}

// --- the API ---------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    super(describe(status, body))
    this.status = status
    this.body = body
  }
}

/** One line (or a few) naming the problem an error body describes. */
function describe(status, body) {
  const tag = typeof body?._tag === "string" ? body._tag : `HTTP ${status}`
  if (Array.isArray(body?.issues) && body.issues.length > 0) {
    const issues = body.issues.map((issue) => `${issue.path?.length ? issue.path.join(".") + ": " : ""}${issue.message}`)
    return `${tag}: ${Array.from(new Set(issues)).join("; ")}`
  }
  return `${tag}: ${body?.message ?? "the server answered " + status}`
}

function authHeaders() {
  const token = $("token").value.trim()
  return token === "" ? {} : { authorization: `Bearer ${token}` }
}

async function api(method, path, body) {
  const headers = { accept: "application/json", ...authHeaders() }
  if (body !== undefined) headers["content-type"] = "application/json"
  let response
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  } catch (error) {
    throw new ApiError(0, { _tag: "Unreachable", message: `the server cannot be reached (${error.message})` })
  }
  const text = await response.text()
  let data
  try {
    data = text === "" ? {} : JSON.parse(text)
  } catch {
    data = { message: text.slice(0, 300) }
  }
  if (!response.ok) throw new ApiError(response.status, data)
  return data
}

// --- the error banner ------------------------------------------------------------

function showError(message) {
  const banner = $("error")
  banner.replaceChildren(element("span", { text: message }), element("button", { className: "dismiss", text: "×", attributes: { type: "button", "aria-label": "Dismiss" } }))
  banner.querySelector("button").addEventListener("click", hideError)
  banner.hidden = false
}

function hideError() {
  $("error").hidden = true
}

// --- the settings card -----------------------------------------------------------

const settingsStatus = (text, kind = "") => {
  const status = $("settings-status")
  status.textContent = text
  status.className = `status ${kind}`
}

/** The settings as last read or written, to send only what the user changed. */
let shown

function fillSettings(view) {
  shown = view.settings
  $("trigger-pct").value = String(view.settings.trigger_pct)
  $("cap-tokens").value = String(view.settings.cap_tokens)
  $("summarizer-model").value = view.settings.summarizer_model ?? ""
  const overridden = Object.keys(view.overrides)
  const card = $("settings-card")
  for (const input of card.querySelectorAll("input")) input.classList.toggle("overridden", overridden.includes(input.name))
}

async function loadSettings() {
  try {
    const view = await api("GET", "/v1/settings/compaction")
    fillSettings(view)
    const overridden = Object.keys(view.overrides)
    settingsStatus(overridden.length === 0 ? "No persisted overrides: defaults, config.toml and the environment apply." : `Persisted overrides: ${overridden.join(", ")}.`)
  } catch (error) {
    settingsStatus(error.status === 401 ? "Enter the server's token above to read the settings." : error.message, "bad")
    if (error.status !== 401) showError(error.message)
  }
}

async function saveSettings(event) {
  event.preventDefault()
  // Only what differs from the settings shown becomes a persisted override.
  const change = {}
  const pct = $("trigger-pct").value.trim()
  const cap = $("cap-tokens").value.trim()
  const model = $("summarizer-model").value.trim()
  if (pct !== "" && Number(pct) !== shown?.trigger_pct) change.trigger_pct = Number.isNaN(Number(pct)) ? pct : Number(pct)
  if (cap !== "" && Number(cap) !== shown?.cap_tokens) change.cap_tokens = Number.isNaN(Number(cap)) ? cap : Number(cap)
  if (model !== (shown?.summarizer_model ?? "")) change.summarizer_model = model
  if (Object.keys(change).length === 0) {
    settingsStatus("Nothing changed.")
    return
  }
  await applySettings(change, "Saved")
}

async function resetSettings() {
  await applySettings({ trigger_pct: null, cap_tokens: null, summarizer_model: null }, "Overrides removed")
}

async function applySettings(change, done) {
  for (const button of [$("settings-save"), $("settings-reset")]) button.disabled = true
  try {
    const view = await api("POST", "/v1/settings/compaction", change)
    fillSettings(view)
    hideError()
    const clamped = view.clamped.map((c) => `${c.key} ${number(c.given)} → ${number(c.stored)} (${c.allowed})`)
    const model = view.settings.summarizer_model ?? "the session's own model"
    settingsStatus(
      `${done}: trigger ${view.settings.trigger_pct} %, cap ${number(view.settings.cap_tokens)} tokens, summariser ${model}.` +
        (clamped.length === 0 ? "" : ` Clamped: ${clamped.join("; ")}.`),
      "good"
    )
  } catch (error) {
    settingsStatus(error.message, "bad")
    showError(error.message)
  } finally {
    for (const button of [$("settings-save"), $("settings-reset")]) button.disabled = false
  }
}

// --- the inspector ---------------------------------------------------------------

async function readFile(file) {
  $("transcript").value = await file.text()
}

function setUpDropZone() {
  const zone = $("drop-zone")
  zone.addEventListener("dragover", (event) => {
    event.preventDefault()
    zone.classList.add("over")
  })
  zone.addEventListener("dragleave", () => zone.classList.remove("over"))
  zone.addEventListener("drop", (event) => {
    event.preventDefault()
    zone.classList.remove("over")
    const file = event.dataTransfer?.files?.[0]
    if (file !== undefined) readFile(file).catch((error) => showError(`the file cannot be read: ${error.message}`))
  })
  $("file").addEventListener("change", (event) => {
    const file = event.target.files?.[0]
    if (file !== undefined) readFile(file).catch((error) => showError(`the file cannot be read: ${error.message}`))
  })
}

async function compact() {
  const text = $("transcript").value
  if (text.trim() === "") {
    showError("Paste or drop a transcript first.")
    return
  }
  const request = { transcript: text, format: $("format").value }
  const window = $("window").value.trim()
  if (window !== "") request.window = Number(window)
  const sessionId = $("session-id").value.trim()
  if (sessionId !== "") request.sessionId = sessionId
  if ($("attended").checked) request.attended = true
  const button = $("compact")
  button.disabled = true
  button.textContent = "Compacting…"
  hideQuestion()
  try {
    const result = await api("POST", "/v1/compact", request)
    hideError()
    renderAnswer(result)
  } catch (error) {
    $("results").hidden = true
    showError(error.message)
  } finally {
    button.disabled = false
    button.textContent = "Compact"
  }
}

/** An answer of /v1/compact or /v1/questions/{id}: a question (202), or the compaction's result. */
function renderAnswer(answer) {
  if (typeof answer.answerPath === "string" && Array.isArray(answer.choices)) showQuestion(answer)
  else {
    hideQuestion()
    render(answer)
  }
}

// --- the question of an attended compaction ------------------------------------------

let question

function showQuestion(asked) {
  question = asked
  $("question-problem").textContent = asked.problem
  $("question-deadline").textContent = `Session ${asked.sessionId}. Without an answer by ${new Date(asked.expiresAt).toLocaleTimeString()}, the oldest turns are trimmed.`
  for (const button of [$("question-retry"), $("question-trim")]) button.disabled = false
  $("question-card").hidden = false
  $("question-retry").focus()
}

function hideQuestion() {
  question = undefined
  $("question-card").hidden = true
}

async function answerQuestion(choice) {
  if (question === undefined) return
  for (const button of [$("question-retry"), $("question-trim")]) button.disabled = true
  const path = question.answerPath
  try {
    const answer = await api("POST", path, { choice })
    hideError()
    renderAnswer(answer)
  } catch (error) {
    hideQuestion()
    showError(error.message)
  }
}

const plural = (n, one, many = `${one}s`) => `${number(n)} ${n === 1 ? one : many}`

/** A ladder step in words: what it did to which messages. */
function stepText(step) {
  const ids = step.messageIds.length <= 5 ? step.messageIds.join(", ") : `${step.messageIds.slice(0, 5).join(", ")} and ${step.messageIds.length - 5} more`
  switch (step.step) {
    case "reply-reserve": return `the reply reserve scaled to ${number(step.tokensAfter)} tokens`
    case "reduce-tool-results": return `${plural(step.messageIds.length, "tool result")} reduced (${ids})`
    case "clip-messages": return `${plural(step.messageIds.length, "message")} clipped (${ids})`
    default: return "the compacted block clipped"
  }
}

/** The repairs in words, by kind. */
function repairsText(repairs) {
  const count = (kind) => repairs.filter((r) => r.kind === kind).length
  return [
    count("lost-result") > 0 ? `${plural(count("lost-result"), "lost tool result")} answered` : undefined,
    count("late-result") > 0 ? `${plural(count("late-result"), "late tool result")} moved next to its call` : undefined,
    count("duplicate-result") > 0 ? `${plural(count("duplicate-result"), "second tool result")} left out` : undefined
  ].filter((part) => part !== undefined)
}

/** What the ladder and the repairs did to the view, in words, or undefined. */
function fitNote(report) {
  const parts = [...(report.ladder ?? []).map(stepText), ...repairsText(report.repairs ?? [])]
  return parts.length === 0 ? undefined : parts.join(", ")
}

function summaryOf(report, view) {
  const c = report.compacted
  const head = `${report.format}: ${number(report.messages)} → ${number(report.viewMessages)} messages, ` +
    `${number(view.reduce((sum, m) => sum + m.tokensBefore, 0))} → ${number(report.tokensAfter)} tokens (trigger ${number(report.trigger)})`
  const fit = fitNote(report)
  const inView = fit === undefined ? "" : `; in the view: ${fit}`
  if (c === null) {
    if (fit !== undefined) return `${head}; not compacted${inView}.`
    return view.some((m) => m.role === "compacted")
      ? `${head}; under the trigger: the session's earlier compacted block stays.`
      : `${head}; under the trigger: unchanged.`
  }
  const how = c.fallback === "none"
    ? `summary ${c.cacheHit ? "from the cache" : `by the summariser (${c.summarizerCalls} call${c.summarizerCalls === 1 ? "" : "s"})`}`
    : `trimmed without a summary (${c.gate.join(", ") || "no summary"})`
  return `${head}; ${number(c.replaced.count)} messages compacted, ${how}${inView}.`
}

const reportIds = { trigger: "report-trigger", ladder: "report-ladder", repairs: "report-repairs" }

function renderReport(report) {
  const list = $("report")
  const rows = [
    ["session", report.sessionId],
    ["trigger", number(report.trigger)],
    ["tokens before", number(report.tokensBefore)],
    ["tokens after", number(report.tokensAfter)]
  ]
  const c = report.compacted
  if (c !== null) {
    rows.push(
      ["compaction", `#${c.compactions} (${c.cause})`],
      ["boundary", `${c.boundary.id} (message ${c.boundary.index})`],
      ["replaced", `${c.replaced.firstId} … ${c.replaced.lastId} (${c.replaced.count})`],
      ["gate", c.gate.join(", ") || "–"],
      ["summary", `${number(c.summaryChars)} characters`],
      ["missing from the summary", c.missingFromSummary.length === 0 ? "none" : c.missingFromSummary.join(", ")],
      ["rules in the span", Object.entries(c.rules).map(([action, n]) => `${action} ${n}`).join(", ") || "–"]
    )
    if (c.archivePath !== undefined) rows.push(["archive", c.archivePath])
  }
  // Compacted or not, the view's ladder steps and repairs.
  const ladder = report.ladder ?? []
  const repairs = report.repairs ?? []
  rows.push(
    ["ladder", ladder.length === 0 ? "none: the view fit as it was" : ladder.map((step) => `${step.step}: ${stepText(step)}, ${number(step.tokensBefore)} → ${number(step.tokensAfter)} tokens`).join("; ")],
    ["repairs", repairs.length === 0 ? "none" : repairs.map((r) => `${r.kind} of call ${r.toolCallId}: ${r.detail}`).join("; ")]
  )
  list.replaceChildren(...rows.flatMap(([term, value]) => [
    element("dt", { text: term }),
    element("dd", { text: value, attributes: reportIds[term] === undefined ? {} : { id: reportIds[term] } })
  ]))
}

/** Horizontal bars: the whole transcript against the whole view, then each view message. */
function renderChart(view) {
  const before = view.reduce((sum, m) => sum + m.tokensBefore, 0)
  const after = view.reduce((sum, m) => sum + m.tokens, 0)
  const rows = [
    { label: "whole view", before, after, total: true },
    ...view.map((m, i) => ({ label: `${i + 1} ${m.role === "compacted" ? "compacted block" : m.role} ${m.role === "compacted" ? "" : m.id}`, before: m.tokensBefore, after: m.tokens, compacted: m.role === "compacted" }))
  ]
  const width = 760
  const labelWidth = 190
  const valueWidth = 150
  const rowHeight = 22
  const top = 24
  const scale = (width - labelWidth - valueWidth) / Math.max(1, ...rows.map((r) => Math.max(r.before, r.after)))
  const chart = svg("svg", { viewBox: `0 0 ${width} ${top + rows.length * rowHeight + 8}`, role: "img", "aria-label": `Tokens before and after: ${number(before)} → ${number(after)}` })
  chart.append(
    svg("rect", { x: labelWidth, y: 4, width: 12, height: 10, class: "before" }),
    svg("text", { x: labelWidth + 16, y: 13, class: "legend" }, "before (transcript)"),
    svg("rect", { x: labelWidth + 150, y: 4, width: 12, height: 10, class: "after" }),
    svg("text", { x: labelWidth + 166, y: 13, class: "legend" }, "after (outbound view)")
  )
  rows.forEach((row, i) => {
    const y = top + i * rowHeight
    const group = svg("g", { class: row.total ? "row total" : row.compacted ? "row compacted" : "row" })
    group.append(
      svg("title", {}, `${row.label}: ${number(row.before)} → ${number(row.after)} tokens`),
      svg("text", { x: labelWidth - 6, y: y + 14, class: "label", "text-anchor": "end" }, row.label.length > 28 ? row.label.slice(0, 27) + "…" : row.label),
      svg("rect", { x: labelWidth, y: y + 2, width: Math.max(1, row.before * scale), height: 8, class: "before" }),
      svg("rect", { x: labelWidth, y: y + 11, width: Math.max(row.after > 0 ? 1 : 0, row.after * scale), height: 8, class: "after" }),
      svg("text", { x: width - valueWidth + 8, y: y + 14, class: "value" }, `${number(row.before)} → ${number(row.after)}`)
    )
    chart.append(group)
  })
  $("chart").replaceChildren(chart)
}

function renderView(view) {
  const items = []
  view.forEach((message, i) => {
    if (message.role === "compacted") {
      items.push(element("li", { className: "divider", attributes: { role: "separator", "data-testid": "compacted-divider" } },
        element("span", { text: `context compacted — ${message.replaced.firstId} … ${message.replaced.lastId} replaced by one block` })))
    }
    const head = element("div", { className: "head" },
      element("span", { className: "role", text: message.role === "compacted" ? "compacted block" : message.role }),
      element("span", { className: "id", text: message.role === "tool" ? `${message.id} ← ${message.toolCallId}${message.name ? " (" + message.name + ")" : ""}` : message.id }),
      element("span", { className: "tokens", text: message.tokensBefore === message.tokens ? `${number(message.tokens)} tokens` : `${number(message.tokensBefore)} → ${number(message.tokens)} tokens` }))
    const body = element("pre", { className: "text", text: message.text })
    items.push(element("li", { className: `message ${message.role}`, attributes: { "data-index": String(i), "data-id": message.id, ...(message.role === "compacted" ? { id: "compacted-block" } : {}) } }, head, body))
  })
  $("view").replaceChildren(...items)
}

const shownActions = ["kept", "omitted", "pruned", "capped", "clipped"]

function renderToolResults(toolResults) {
  const body = $("tool-results").querySelector("tbody")
  const scale = 90 / Math.max(1, ...toolResults.map((t) => t.tokensBefore))
  const rows = toolResults.map((t) => {
    const other = Object.entries(t.totals).filter(([action]) => !shownActions.includes(action)).map(([action, n]) => `${action} ${n}`).join(", ")
    const bars = svg("svg", { width: 96, height: 14, class: "mini", "aria-hidden": "true" })
    bars.append(
      svg("rect", { x: 0, y: 1, width: Math.max(1, t.tokensBefore * scale), height: 5, class: "before" }),
      svg("rect", { x: 0, y: 8, width: Math.max(1, t.tokensAfter * scale), height: 5, class: "after" })
    )
    const tokens = element("td", {}, element("div", { className: "tokens" }, bars, element("span", { text: `${number(t.tokensBefore)} → ${number(t.tokensAfter)}` })))
    const row = element("tr", { className: t.inView ? "in-view" : "in-block", attributes: { title: [...t.rules.map((r) => `${r.rule}: ${Object.entries(r.counts).map(([a, n]) => `${a} ${n}`).join(", ")}`), ...t.notes].join("\n") } },
      element("td", { text: t.id }),
      element("td", { text: t.name ?? "–" }),
      element("td", { text: t.inView ? "view" : "block" }),
      element("td", { text: t.policy === null ? t.route : `${t.route} (${t.policy})` }),
      tokens,
      ...shownActions.map((action) => element("td", { className: "num", text: String(t.totals[action] ?? 0) })),
      element("td", { text: other || "–" }))
    return row
  })
  body.replaceChildren(...rows)
  $("tool-results-cap").textContent = toolResults.length === 0 ? "(none)" : `(${toolResults.length}, at the envelope cap of ${number(toolResults[0].capChars)} characters)`
}

/** The session the view shows and the compactions it includes, so that a live compaction of it draws its divider. */
let shownSession

function render(result) {
  const blocks = result.view.filter((m) => m.role === "compacted").map((m) => Number(/(\d+)$/.exec(m.id)?.[1] ?? 0))
  shownSession = { id: result.report.sessionId, compactions: Math.max(result.report.compacted?.compactions ?? 0, ...blocks) }
  $("summary").textContent = summaryOf(result.report, result.view)
  renderReport(result.report)
  renderChart(result.view)
  renderView(result.view)
  renderToolResults(result.toolResults)
  $("results").hidden = false
}

// --- the compactions, as the server streams them -------------------------------------

let events

async function listen() {
  events?.abort()
  const controller = new AbortController()
  events = controller
  const status = $("events-status")
  try {
    const response = await fetch("/v1/events", { headers: { accept: "text/event-stream", ...authHeaders() }, signal: controller.signal })
    if (!response.ok) {
      status.textContent = response.status === 401 ? "(enter the token to follow them)" : `(unavailable: ${response.status})`
      return
    }
    status.textContent = "(live)"
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ""
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += value
      let end
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        onEvent(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return
  }
  if (controller.signal.aborted) return
  status.textContent = "(reconnecting)"
  setTimeout(() => events === controller && listen(), 3000)
}

function onEvent(chunk) {
  const lines = chunk.split("\n")
  const event = lines.find((line) => line.startsWith("event: "))?.slice(7)
  const data = lines.filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n")
  if (event !== "compacted") return
  const c = JSON.parse(data)
  const item = element("li", { text: `${new Date().toLocaleTimeString()} ${c.sessionId}: compaction #${c.compactions}, ${number(c.tokensBefore)} → ${number(c.tokensAfter)} tokens (trigger ${number(c.trigger)})${c.fallback === "trim" ? ", trimmed" : ""}` })
  const list = $("events")
  list.prepend(item)
  while (list.children.length > 50) list.lastChild.remove()
  if (shownSession !== undefined && c.sessionId === shownSession.id && c.compactions > shownSession.compactions) drawLiveDivider(c)
}

/**
 * A compaction of the session the view shows, made elsewhere (an agent posting
 * the same session): the divider goes before its first kept message, and the
 * messages before it are marked as replaced.
 */
function drawLiveDivider(c) {
  shownSession = { ...shownSession, compactions: c.compactions }
  const view = $("view")
  const items = Array.from(view.children)
  const boundary = items.find((item) => item.classList.contains("message") && item.dataset.id === c.boundary.id)
  const divider = element("li", { className: "divider live", attributes: { role: "separator", "data-testid": "live-compacted-divider" } },
    element("span", { text: `context compacted (live, #${c.compactions}) — ${c.replaced.firstId} … ${c.replaced.lastId} replaced by one block, ${number(c.tokensBefore)} → ${number(c.tokensAfter)} tokens` }))
  if (boundary === undefined) view.append(divider)
  else {
    view.insertBefore(divider, boundary)
    for (const item of items.slice(0, items.indexOf(boundary))) {
      if (item.classList.contains("message") && !item.classList.contains("system")) item.classList.add("replaced")
    }
  }
}

// --- start -------------------------------------------------------------------------

$("token").value = localStorage.getItem(tokenKey) ?? ""
/** The token the settings and the event stream were last read with: Enter fires both change and submit, and one reload is enough. */
let appliedToken = $("token").value.trim()
function applyToken() {
  const token = $("token").value.trim()
  if (token === appliedToken) return
  appliedToken = token
  localStorage.setItem(tokenKey, token)
  hideError()
  loadSettings()
  listen()
}
$("token").addEventListener("change", applyToken)
$("token-form").addEventListener("submit", (event) => {
  event.preventDefault()
  applyToken()
})
$("settings-form").addEventListener("submit", saveSettings)
$("settings-reset").addEventListener("click", resetSettings)
$("compact").addEventListener("click", compact)
$("question-retry").addEventListener("click", () => answerQuestion("retry"))
$("question-trim").addEventListener("click", () => answerQuestion("trim"))
setUpDropZone()
loadSettings()
listen()
