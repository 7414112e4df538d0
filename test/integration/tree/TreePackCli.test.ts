// `vtree tree pack|unpack|verify` through the CLI, in-process (issue #31): what a person sees, and the exit codes.
import { afterEach, assert, describe, it } from "@effect/vitest"
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli/InProcess.js"
import { samplesTrees, tempDir } from "../../support/harness/Cli.js"
import { manifestOf, writeHostilePack } from "../../support/trees/HostilePack.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const video = "vtSmpl0001a"

const workspace = () => {
  const temp = tempDir()
  cleanups.push(temp.cleanup)
  const trees = join(temp.dir, "trees")
  cpSync(samplesTrees, trees, { recursive: true })
  return { dir: temp.dir, trees }
}

describe("vtree tree pack, unpack, verify (in-process CLI)", () => {
  it("pack, unpack, tree validate and verify succeed; the note reaches the receiver rendered", async () => {
    const { dir, trees } = workspace()
    const file = join(dir, "trees.tar.gz")
    const packed = await runCli(["tree", "pack", trees, "--out", file, "--note", "CC BY 4.0\u001b[2J"])
    assert.strictEqual(packed.code, 0, packed.stderr)
    assert.match(packed.stdout, /^packed 1 tree \(vtSmpl0001a\), 21 files, .* → .*trees\.tar\.gz \(.*\)\n$/)

    const out = join(dir, "unpacked")
    const unpacked = await runCli(["tree", "unpack", file, "--out", out])
    assert.strictEqual(unpacked.code, 0, unpacked.stderr)
    assert.include(unpacked.stdout, "every sha256 matches")
    assert.include(unpacked.stdout, "note: CC BY 4.0\\x1b[2J")
    assert.notInclude(unpacked.stdout, "\u001b")

    const validated = await runCli(["tree", "validate", join(out, video)])
    assert.strictEqual(validated.code, 0, validated.stderr)
    assert.include(validated.stdout, "frames: 20 found, 0 missing")
    for (const target of [file, out]) {
      const verified = await runCli(["tree", "verify", target])
      assert.strictEqual(verified.code, 0, verified.stderr)
      assert.match(verified.stdout, /^ok: 1 tree, 21 files, .* match the manifest\n$/)
    }
  })

  it("verify of a tampered folder is one vtree: line naming the file, exit 1", async () => {
    const { dir, trees } = workspace()
    const file = join(dir, "trees.tar.gz")
    assert.strictEqual((await runCli(["tree", "pack", trees, video, "--out", file])).code, 0)
    const out = join(dir, "unpacked")
    assert.strictEqual((await runCli(["tree", "unpack", file, "--out", out])).code, 0)
    const frame = join(out, video, "frames", "L1_000_L2_000_L3_003.jpg")
    const bytes = readFileSync(frame)
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 1
    writeFileSync(frame, bytes)
    const verified = await runCli(["tree", "verify", out])
    assert.strictEqual(verified.code, 1)
    assert.strictEqual(verified.stdout, "")
    assert.match(
      verified.stderr,
      /^vtree: \S+unpacked: "vtSmpl0001a\/frames\/L1_000_L2_000_L3_003\.jpg" has sha256 [0-9a-f]{64}, the manifest says [0-9a-f]{64} — unpack the pack again, or ask its sender for a new one\n$/
    )
    // Unpacking again over it needs --replace, which restores the frame.
    const again = await runCli(["tree", "unpack", file, "--out", out])
    assert.strictEqual(again.code, 1)
    assert.match(again.stderr, /^vtree: \S+: holds an earlier unpack — pass --replace to replace it/)
    assert.strictEqual((await runCli(["tree", "unpack", file, "--out", out, "--replace"])).code, 0)
    assert.strictEqual((await runCli(["tree", "verify", out])).code, 0)
  })

  it("unpack of a hostile pack: one line with the entry rendered, exit 1, nothing written", async () => {
    const { dir } = workspace()
    const file = join(dir, "hostile.tar.gz")
    const hostile = "t1/\u001b]0;owned\u0007/../../x"
    await writeHostilePack(file, manifestOf({ "t1/tree.json": "{}" }, ["t1"]), [
      { header: { name: "t1/tree.json" }, body: "{}" },
      { header: { name: hostile }, body: "owned" }
    ])
    const result = await runCli(["tree", "unpack", file, "--out", join(dir, "out")])
    assert.strictEqual(result.code, 1)
    assert.notInclude(result.stderr, "\u001b")
    assert.notInclude(result.stderr, "internal error")
    assert.match(
      result.stderr,
      /^vtree: \S+hostile\.tar\.gz: entry "t1\/\\x1b]0;owned\\x07\/\.\.\/\.\.\/x" has a control character in its name — do not use this file; a pack vtree writes has none\n$/
    )
    assert.deepStrictEqual(readdirSync(dir).sort(), ["hostile.tar.gz", "trees"])
    assert.isFalse(existsSync(join(dir, "x")))
  })

  it("unpack and verify of a pack whose node id leaves its tree: one line naming tree.json and the node, exit 1", async () => {
    const { dir, trees } = workspace()
    const tree = JSON.parse(readFileSync(join(trees, video, "tree.json"), "utf8"))
    const escaping = `${video}_../../../../home/someone/secret/photo`
    const l3 = `${video}_L1_000_L2_000_L3_000`
    assert.isDefined(tree.nodes[l3])
    tree.nodes[escaping] = { ...tree.nodes[l3], id: escaping }
    delete tree.nodes[l3]
    const parent = tree.nodes[`${video}_L1_000_L2_000`]
    parent.children_ids = parent.children_ids.map((id: string) => (id === l3 ? escaping : id))
    const files = { [`${video}/tree.json`]: JSON.stringify(tree) }
    const file = join(dir, "hostile.tar.gz")
    await writeHostilePack(
      file,
      manifestOf(files, [video]),
      Object.entries(files).map(([name, body]) => ({ header: { name }, body }))
    )
    const result = await runCli(["tree", "unpack", file, "--out", join(dir, "out")])
    assert.strictEqual(result.code, 1)
    assert.match(
      result.stderr,
      /^vtree: \S+hostile\.tar\.gz: vtSmpl0001a\/tree\.json: nodes: node id "vtSmpl0001a_\.\.\/\.\.\/[^"]*" contains a path separator — node ids are plain names .* — do not use this pack\n$/
    )
    assert.deepStrictEqual(readdirSync(dir).sort(), ["hostile.tar.gz", "trees"])
    const verified = await runCli(["tree", "verify", file])
    assert.strictEqual(verified.code, 1)
    assert.include(verified.stderr, "contains a path separator")
  })

  it("pack of an unknown video id names it and the trees folder", async () => {
    const { dir, trees } = workspace()
    const result = await runCli(["tree", "pack", trees, "nope", "--out", join(dir, "x.tar.gz")])
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr, /^vtree: \S+trees: no tree for video "nope" \(no \S+nope\/tree\.json\)/)
  })
})
