import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import {
  decodeManifest,
  decompressedBound,
  entryNameProblem,
  type Manifest,
  manifestProblem
} from "../../../../src/programs/tree/pack/PackManifest.js"

const hash = "0".repeat(64)
const manifest = (paths: ReadonlyArray<string>, folders: ReadonlyArray<string> = ["t1"]): Manifest => ({
  format: "vtree-pack",
  format_version: 1,
  vtree_version: "0.1.0",
  note: null,
  trees: folders.map((folder) => ({ folder, video_id: folder, build: null })),
  files: paths.map((path) => ({ path, size: 10, sha256: hash }))
})

describe("pack entry names", () => {
  it("plain relative names pass; anything that climbs, restarts at a root or hides a separator does not", () => {
    assert.isUndefined(entryNameProblem("t1/frames/L1_000_L2_000_L3_000.jpg"))
    assert.isUndefined(entryNameProblem("t1/..hidden/x"))
    assert.include(entryNameProblem("../x"), "..")
    assert.include(entryNameProblem("t1/../../x"), "..")
    assert.include(entryNameProblem("/etc/passwd"), "absolute")
    assert.include(entryNameProblem("C:/x"), "absolute")
    assert.include(entryNameProblem("\\\\server\\x"), "absolute")
    assert.include(entryNameProblem("t1\\..\\x"), "backslash")
    assert.include(entryNameProblem("t1/a\u0000b"), "control")
    assert.include(entryNameProblem("t1//x"), "empty")
    assert.include(entryNameProblem("t1/./x"), "empty or .")
    assert.include(entryNameProblem(""), "empty")
  })
})

describe("manifest checks before anything is written", () => {
  it("a well-formed manifest passes", () => {
    assert.isUndefined(manifestProblem(manifest(["t1/tree.json", "t1/frames/a.jpg"]), 1000))
  })

  it("names a file listed twice, also when only the letter case differs", () => {
    assert.include(manifestProblem(manifest(["t1/tree.json", "t1/A.jpg", "t1/a.jpg"]), 1000)?.text, "listed twice")
  })

  it("names a file where another needs a folder", () => {
    assert.include(manifestProblem(manifest(["t1/tree.json", "t1/x", "t1/x/y"]), 1000)?.text, "need a folder")
  })

  it("names a file outside the listed trees, inside a cache folder, or a tree without tree.json", () => {
    assert.strictEqual(manifestProblem(manifest(["t1/tree.json", "t2/tree.json"]), 1000)?.reason, "Unsafe")
    assert.include(manifestProblem(manifest(["t1/tree.json", "t1/.vtree/x"]), 1000)?.text, "cache")
    assert.include(manifestProblem(manifest(["t1/frames/a.jpg"]), 1000)?.text, "t1/tree.json")
    assert.strictEqual(manifestProblem(manifest(["x/tree.json"], ["../x"]), 1000)?.reason, "Unsafe")
  })

  it("refuses more bytes in all than the cap", () => {
    const problem = manifestProblem(manifest(["t1/tree.json", "t1/a.jpg"]), 19)
    assert.strictEqual(problem?.reason, "TooLarge")
    assert.include(problem?.text, "20 bytes")
  })

  it("refuses a tree.json larger than vtree reads, before any entry (unpack checks each tree in memory)", () => {
    const big = manifest(["t1/tree.json", "t1/a.jpg"])
    const huge = { ...big, files: big.files.map((file) => ({ ...file, size: 600 * 1024 * 1024 })) }
    const problem = manifestProblem(huge, Number.MAX_SAFE_INTEGER)
    assert.strictEqual(problem?.reason, "TooLarge")
    assert.include(problem?.text, "t1/tree.json")
  })

  it("decodes only the vtree-pack format and names the first wrong field", () => {
    const bad = decodeManifest(
      Buffer.from(JSON.stringify({ ...manifest([]), files: [{ path: "t1/x", size: -1, sha256: hash }] }))
    )
    assert.isTrue(Either.isLeft(bad))
    if (Either.isLeft(bad)) assert.include(bad.left.text, "files[0].size")
    assert.isTrue(Either.isLeft(decodeManifest(Buffer.from(JSON.stringify({ ...manifest([]), format: "zip" })))))
    assert.isTrue(Either.isLeft(decodeManifest(Buffer.from("not json"))))
  })

  it("bounds the decompressed bytes by the listed sizes in tar blocks plus headers", () => {
    const bound = decompressedBound(manifest(["t1/tree.json", "t1/a.jpg"]), 300)
    assert.isAtLeast(bound, 3 * 512 + 3 * 512)
    assert.isAtMost(bound, 200 * 1024)
  })
})
