import { assert, describe, it } from "@effect/vitest"
import { resumeCommand, shellWord } from "../../../src/cli/infer/ResumeHint.js"

describe("resumeCommand", () => {
  it("names the database only when it is not the one infer opens unsaid", () => {
    assert.strictEqual(resumeCommand("r1", "vtree.db", "vtree.db"), "vtree infer --resume --run-id r1")
    assert.strictEqual(
      resumeCommand("r1", "/tmp/runs.db", "vtree.db"),
      "vtree infer --resume --run-id r1 --db /tmp/runs.db"
    )
  })

  it("quotes a path the shell would split, and hides a PostgreSQL password", () => {
    assert.strictEqual(
      resumeCommand("r1", "my runs/it's.db", "vtree.db"),
      "vtree infer --resume --run-id r1 --db 'my runs/it'\\''s.db'"
    )
    assert.notInclude(resumeCommand("r1", "postgres://u:secret@h:5432/d", "vtree.db"), "secret")
    assert.strictEqual(shellWord("run-2025_01.x"), "run-2025_01.x")
  })
})
