// A session for the checks (checks/): the user asks why the parser tests fail, then 40 runs of a
// test file, each failing over 40 lines, with the face's own `Transcript` classes.
export const failingRuns = (Transcript) => {
  const transcript = [new Transcript.UserMessage({ id: "u0", content: "Find why the parser tests fail." })]
  for (let n = 1; n <= 40; n++) {
    const command = JSON.stringify({ command: `pytest tests/test_parser_${n}.py` })
    transcript.push(
      new Transcript.AssistantMessage({
        id: `a${n}`,
        content: "",
        toolCalls: [new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: command })]
      }),
      new Transcript.ToolResult({
        id: `r${n}`,
        toolCallId: `c${n}`,
        name: "bash",
        content: `FAILED tests/test_parser_${n}.py::test_case_${n} - AssertionError: got ${n * 7}\n`.repeat(40)
      })
    )
  }
  return transcript
}
