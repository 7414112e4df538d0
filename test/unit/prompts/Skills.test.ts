import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { classifySkills, parseSkill, type Skill, skillSeparator } from "../../../src/programs/prompts/Skills.js"

const skill = (text: string): Skill | undefined => {
  const result = parseSkill(text)
  if (Either.isLeft(result)) assert.fail(result.left)
  return result.right
}

const make = (overrides: Partial<Skill> & { name: string }): Skill => ({
  description: `about ${overrides.name}`,
  always: false,
  taskType: null,
  body: `body of ${overrides.name}`,
  ...overrides
})

describe("parseSkill", () => {
  it("reads the fields and strips the frontmatter from the body", () => {
    assert.deepStrictEqual(
      skill("---\nname: counting\ndescription: how many\ntask_type: Counting Problem\n---\n## Counting\nSteps"),
      {
        name: "counting",
        description: "how many",
        always: false,
        taskType: "Counting Problem",
        body: "## Counting\nSteps"
      }
    )
  })

  it("skips a file without a name", () => {
    assert.isUndefined(skill("---\ndescription: a draft\n---\nbody"))
    assert.isUndefined(skill("no header at all"))
  })

  it("rejects an always value that is not a boolean, naming the field and the value", () => {
    const result = parseSkill("---\nname: x\nalways: yes\n---\n")
    assert.deepStrictEqual(result, Either.left(`always: expected true or false, got "yes"`))
  })

  it("rejects a field of the wrong kind, such as a list for a task type", () => {
    const result = parseSkill("---\nname: x\ntask_type: [Counting Problem]\n---\n")
    assert.deepStrictEqual(result, Either.left("task_type: expected a Video-MME task type or _default"))
  })
})

describe("classifySkills", () => {
  const entries = [
    make({ name: "strategy", always: true, body: "ALWAYS-1" }),
    make({ name: "style", always: true, body: "ALWAYS-2" }),
    make({ name: "counting", taskType: "Counting Problem" }),
    make({ name: "general", taskType: "_default" }),
    make({ name: "extra" })
  ].map((s) => ({ file: `${s.name}.md`, skill: s }))

  it("joins always skills, lists the others in the catalog, and maps task types", () => {
    const set = Either.getOrThrow(classifySkills(entries))
    assert.strictEqual(set.alwaysText, `ALWAYS-1${skillSeparator}ALWAYS-2`)
    assert.strictEqual(
      set.catalog,
      "- **counting**: about counting\n- **general**: about general\n- **extra**: about extra"
    )
    assert.strictEqual(set.forTaskType("Counting Problem")?.name, "counting")
    assert.strictEqual(set.forTaskType("counting problem")?.name, "counting")
    assert.strictEqual(set.forTaskType("Unknown Type")?.name, "general")
    assert.strictEqual(set.forTaskType(undefined)?.name, "general")
    assert.isTrue(set.hasTaskType("Counting Problem"))
    assert.isFalse(set.hasTaskType("Unknown Type"))
  })

  it("reads non-always skills by name only", () => {
    const set = Either.getOrThrow(classifySkills(entries))
    assert.strictEqual(set.readSkill("extra"), "body of extra")
    assert.strictEqual(set.readSkill("COUNTING"), "body of counting")
    assert.isUndefined(set.readSkill("strategy"))
    assert.isUndefined(set.readSkill("missing"))
  })

  it("rejects two skills with one name or one task type, naming the file", () => {
    const sameName = classifySkills([...entries, { file: "copy.md", skill: make({ name: "Extra" }) }])
    assert.isTrue(
      Either.isLeft(sameName) && sameName.left.file === "copy.md" && sameName.left.message.includes("extra.md")
    )
    const sameType = classifySkills([
      ...entries,
      { file: "count2.md", skill: make({ name: "count2", taskType: "Counting Problem" }) }
    ])
    assert.isTrue(Either.isLeft(sameType) && sameType.left.message.includes("counting.md"))
  })
})
