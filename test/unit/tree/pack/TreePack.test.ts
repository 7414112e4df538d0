import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber } from "effect"
import { createReadStream, readFileSync } from "node:fs"
import { cp, readdir, readFile, writeFile } from "node:fs/promises"
import { PassThrough } from "node:stream"
import { gunzipSync, gzipSync } from "node:zlib"
import { extract } from "tar-stream"
import { PackFiles } from "../../../../src/programs/tree/pack/PackIo.js"
import { packTrees } from "../../../../src/programs/tree/pack/TreePack.js"
import { unpackTrees } from "../../../../src/programs/tree/pack/TreeUnpack.js"
import { verifyPack } from "../../../../src/programs/tree/pack/TreeVerify.js"
import { readTreeIndex } from "../../../../src/programs/tree/TreeLoader.js"
import { scopedTempDir } from "../../../support/TempDir.js"
import { manifestOf, type RawEntry, sha256, tarOf, writeHostilePack } from "../../../support/trees/HostilePack.js"
import { syntheticTree, writeTree } from "../../../support/trees/SyntheticTree.js"

const sampleId = "vtSmpl0001a"

/** A trees folder with the bundled sample tree (frames included) and a small synthetic one with a build record. */
const treesFolder = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* scopedTempDir("tree-pack")
  const trees = path.join(root, "trees")
  yield* Effect.promise(() =>
    cp(path.join("samples", "trees", sampleId), path.join(trees, sampleId), { recursive: true })
  )
  const synthetic = { ...syntheticTree({ videoId: "synth01", scenes: 2, eventsPerScene: 2, framesPerEvent: 2 }) }
  writeTree(path.join(trees, "synth01"), { ...synthetic, build: { vtree_version: "0.0.9", fps: 1 } })
  // A machine-local cache: never packed.
  yield* fs.makeDirectory(path.join(trees, "synth01", ".vtree"))
  yield* fs.writeFileString(path.join(trees, "synth01", ".vtree", "embeddings-x.bin"), "cache")
  return { root, trees }
})

const run = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Effect.provide(NodeContext.layer))

const failure = <A, E extends { readonly message: string; readonly reason: string }, R>(
  effect: Effect.Effect<A, E, R>
) => Effect.flip(effect)

/**
 * Files read as the programs read them, except that the `call`-th read of `file` (1 for the first) gives its
 * first `bytes` bytes, completes `stalled` and never ends: a program reading it is stopped mid-way, for as
 * long as the test likes.
 */
const stallingAt = (file: string, call: number, bytes: number, stalled: Deferred.Deferred<void>) => {
  let calls = 0
  return Effect.provideService(PackFiles, {
    read: (path) => {
      if (path !== file || ++calls !== call) return createReadStream(path)
      const stream = new PassThrough()
      stream.write(readFileSync(path).subarray(0, bytes))
      Deferred.unsafeDone(stalled, Exit.void)
      return stream
    }
  })
}

/** Waits until `ready` holds, looking again after each real read of the disk it makes. */
const until = <E, R>(ready: Effect.Effect<boolean, E, R>) => Effect.repeat(ready, { until: (done) => done })

/** Every entry of a pack file: name, type, body. */
const entriesOf = async (file: string) => {
  const reader = extract()
  const out: Array<{ name: string; type: string; mode: number; mtime: number; uid: number; body: Buffer }> = []
  const done = (async () => {
    for await (const entry of reader) {
      const chunks: Array<Buffer> = []
      for await (const chunk of entry) chunks.push(Buffer.from(chunk as Uint8Array))
      out.push({
        name: entry.header.name,
        type: entry.header.type,
        mode: entry.header.mode,
        mtime: entry.header.mtime.getTime(),
        uid: entry.header.uid,
        body: Buffer.concat(chunks)
      })
    }
  })()
  reader.end(gunzipSync(await readFile(file)))
  await done
  return out
}

/** Rewrites a pack file through `edit` of its entries, keeping the rest byte for byte. */
const rewritePack = async (file: string, edit: (entries: Array<RawEntry>) => Array<RawEntry>) => {
  const entries = (await entriesOf(file)).map((entry): RawEntry => ({ header: { name: entry.name }, body: entry.body }))
  await writeFile(file, gzipSync(await tarOf(edit(entries))))
}

describe("vtree tree pack, unpack, verify (issue #31)", () => {
  it.scoped("a pack unpacks to the same trees, which validate, and verifies ok as a file and as a folder", () =>
    run(Effect.gen(function*() {
      const path = yield* Path.Path
      const { root, trees } = yield* treesFolder
      const file = path.join(root, "trees.tar.gz")
      const packed = yield* packTrees({ trees, videoIds: [], out: file, note: "CC BY 4.0 captions" })
      assert.deepStrictEqual(packed.trees, ["synth01", sampleId])

      const entries = yield* Effect.promise(() => entriesOf(file))
      assert.strictEqual(entries[0]!.name, "manifest.json")
      const manifest = JSON.parse(entries[0]!.body.toString("utf8"))
      assert.strictEqual(manifest.note, "CC BY 4.0 captions")
      assert.strictEqual(manifest.format, "vtree-pack")
      assert.isString(manifest.vtree_version)
      assert.deepStrictEqual(manifest.trees.map((tree: { folder: string }) => tree.folder), ["synth01", sampleId])
      assert.deepStrictEqual(manifest.trees[0].build, { vtree_version: "0.0.9", fps: 1 })
      assert.isNull(manifest.trees[1].build)
      // Every file listed with its size and hash, in entry order; the cache folder left out.
      const names = entries.slice(1).map((entry) => entry.name)
      assert.deepStrictEqual(manifest.files.map((file: { path: string }) => file.path), names)
      assert.deepStrictEqual([...names].sort(), names)
      assert.isFalse(names.some((name) => name.includes(".vtree")))
      assert.include(names, `${sampleId}/frames/L1_000_L2_000_L3_000.jpg`)
      for (const [i, entry] of entries.slice(1).entries()) {
        assert.strictEqual(manifest.files[i].size, entry.body.length)
        assert.strictEqual(manifest.files[i].sha256, sha256(entry.body))
        assert.strictEqual(entry.type, "file")
      }

      const out = path.join(root, "unpacked")
      const unpacked = yield* unpackTrees({ file, out, replace: false })
      assert.deepStrictEqual(unpacked.trees, ["synth01", sampleId])
      const { index } = yield* readTreeIndex(path.join(out, sampleId))
      assert.strictEqual(index.videoId, sampleId)
      assert.deepStrictEqual(
        yield* Effect.promise(() => readFile(path.join(out, sampleId, "frames", "L1_000_L2_000_L3_000.jpg"))),
        yield* Effect.promise(() => readFile(path.join(trees, sampleId, "frames", "L1_000_L2_000_L3_000.jpg")))
      )
      assert.strictEqual((yield* verifyPack(file)).files, names.length)
      assert.strictEqual((yield* verifyPack(out)).files, names.length)
      // No temporary folder is left beside the output.
      assert.deepStrictEqual((yield* Effect.promise(() => readdir(root))).sort(), ["trees", "trees.tar.gz", "unpacked"])
    })))

  it.scoped("two packs of the same trees are byte-identical: sorted entries, fixed times, owners and modes", () =>
    run(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const { root, trees } = yield* treesFolder
      const first = path.join(root, "a.tar.gz")
      const second = path.join(root, "b.tar.gz")
      yield* packTrees({ trees, videoIds: [], out: first, note: null })
      // Times and modes on disk change; the pack does not.
      yield* fs.utimes(path.join(trees, sampleId, "tree.json"), new Date(2001, 1, 1), new Date(2001, 1, 1))
      yield* fs.chmod(path.join(trees, sampleId, "tree.json"), 0o600)
      yield* packTrees({ trees, videoIds: [], out: second, note: null })
      const a = yield* fs.readFile(first)
      const b = yield* fs.readFile(second)
      assert.strictEqual(sha256(a), sha256(b))
      for (const entry of yield* Effect.promise(() => entriesOf(first))) {
        assert.strictEqual(entry.mode, 0o644)
        assert.strictEqual(entry.uid, 0)
        assert.strictEqual(entry.mtime, Date.UTC(2000, 0, 1))
      }
    })))

  it.scoped("video ids choose the trees; an unknown id is named", () =>
    run(Effect.gen(function*() {
      const path = yield* Path.Path
      const { root, trees } = yield* treesFolder
      const file = path.join(root, "one.tar.gz")
      const packed = yield* packTrees({ trees, videoIds: [sampleId], out: file, note: null })
      assert.deepStrictEqual(packed.trees, [sampleId])
      const names = (yield* Effect.promise(() => entriesOf(file))).map((entry) => entry.name)
      assert.isFalse(names.some((name) => name.startsWith("synth01/")))
      const error = yield* failure(packTrees({ trees, videoIds: ["nope"], out: file, note: null }))
      assert.include(error.message, "nope")
      assert.include(error.message, trees)
    })))

  it.scoped("pack refuses to write the pack inside a tree it packs, and leaves hidden folders out", () =>
    run(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const { root, trees } = yield* treesFolder
      const inside = path.join(trees, sampleId, "frames", "self.tar.gz")
      const error = yield* failure(packTrees({ trees, videoIds: [], out: inside, note: null }))
      assert.strictEqual(error.reason, "BadInput")
      assert.include(error.message, `inside the tree ${sampleId}`)
      assert.isFalse(yield* fs.exists(inside))
      // A hidden folder (an unpack under way) holding a tree is not one of the trees.
      yield* Effect.promise(() => cp(path.join(trees, "synth01"), path.join(trees, ".staging"), { recursive: true }))
      const packed = yield* packTrees({ trees, videoIds: [], out: path.join(root, "x.tar.gz"), note: null })
      assert.deepStrictEqual(packed.trees, ["synth01", sampleId])
    })))

  it.scoped("pack refuses a symbolic link inside a tree, naming it", () =>
    run(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const { root, trees } = yield* treesFolder
      yield* fs.symlink("/etc/passwd", path.join(trees, "synth01", "frames", "evil.jpg"))
      const error = yield* failure(packTrees({ trees, videoIds: [], out: path.join(root, "x.tar.gz"), note: null }))
      assert.include(error.message, "evil.jpg")
      assert.include(error.message, "link")
      assert.isFalse(yield* fs.exists(path.join(root, "x.tar.gz")))
    })))

  describe("verify names the first file that differs", () => {
    const packed = Effect.gen(function*() {
      const path = yield* Path.Path
      const { root, trees } = yield* treesFolder
      const file = path.join(root, "trees.tar.gz")
      yield* packTrees({ trees, videoIds: [], out: file, note: null })
      const out = path.join(root, "unpacked")
      yield* unpackTrees({ file, out, replace: false })
      return { root, file, out }
    })
    const frame = `${sampleId}/frames/L1_000_L2_000_L3_001.jpg`

    it.scoped("a changed byte in a frame: hash", () =>
      run(Effect.gen(function*() {
        const path = yield* Path.Path
        const { file, out } = yield* packed
        const bytes = yield* Effect.promise(() => readFile(path.join(out, frame)))
        bytes[10] = bytes[10]! ^ 0xff
        yield* Effect.promise(() => writeFile(path.join(out, frame), bytes))
        const error = yield* failure(verifyPack(out))
        assert.strictEqual(error.reason, "Mismatch")
        assert.include(error.message, frame)
        assert.include(error.message, "sha256")
        yield* Effect.promise(() =>
          rewritePack(file, (entries) =>
            entries.map((entry) => (entry.header.name === frame ? { ...entry, body: bytes } : entry)))
        )
        const fromFile = yield* failure(verifyPack(file))
        assert.include(fromFile.message, frame)
        assert.include(fromFile.message, "sha256")
      })))

    it.scoped("an added file: not in the manifest", () =>
      run(Effect.gen(function*() {
        const path = yield* Path.Path
        const { file, out } = yield* packed
        yield* Effect.promise(() => writeFile(path.join(out, "synth01", "frames", "added.jpg"), "x"))
        const error = yield* failure(verifyPack(out))
        assert.include(error.message, "synth01/frames/added.jpg")
        assert.include(error.message, "not in the manifest")
        yield* Effect.promise(() =>
          rewritePack(file, (entries) => [...entries, { header: { name: "synth01/frames/added.jpg" }, body: "x" }])
        )
        assert.include((yield* failure(verifyPack(file))).message, "synth01/frames/added.jpg")
      })))

    it.scoped("a removed file: missing", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const { file, out } = yield* packed
        yield* fs.remove(path.join(out, frame))
        const error = yield* failure(verifyPack(out))
        assert.include(error.message, frame)
        assert.include(error.message, "missing")
        yield* Effect.promise(() =>
          rewritePack(file, (entries) => entries.filter((entry) => entry.header.name !== frame))
        )
        const fromFile = yield* failure(verifyPack(file))
        assert.include(fromFile.message, frame)
        assert.include(fromFile.message, "missing")
      })))

    it.scoped("an edited manifest: the file whose size or hash it no longer matches", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const { file, out } = yield* packed
        const manifest = JSON.parse(yield* fs.readFileString(path.join(out, "manifest.json")))
        const listed = manifest.files.find((entry: { path: string }) => entry.path === frame)
        listed.size += 1
        yield* fs.writeFileString(path.join(out, "manifest.json"), JSON.stringify(manifest))
        const error = yield* failure(verifyPack(out))
        assert.include(error.message, frame)
        assert.include(error.message, "size")
        yield* Effect.promise(() =>
          rewritePack(file, (entries) =>
            entries.map((entry) =>
              entry.header.name === "manifest.json" ? { ...entry, body: JSON.stringify(manifest) } : entry
            ))
        )
        const fromFile = yield* failure(verifyPack(file))
        assert.include(fromFile.message, frame)
      })))
  })

  describe("unpack refuses a hostile pack and writes nothing", () => {
    const good = { "t1/tree.json": "{}", "t1/frames/a.jpg": "jpeg" }
    /** Unpacks a pack of `good` plus `extra` entries (with `listed` added to the manifest); the error, and that nothing was written. */
    const refused = (
      entries: ReadonlyArray<RawEntry>,
      options: {
        readonly listed?: Record<string, string>
        readonly manifest?: unknown
        readonly trailer?: Uint8Array
        readonly maxBytes?: number
      } = {}
    ) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const root = yield* scopedTempDir("tree-pack")
        const file = path.join(root, "hostile.tar.gz")
        const manifest = options.manifest ?? manifestOf({ ...good, ...options.listed }, ["t1"])
        yield* Effect.promise(() =>
          writeHostilePack(file, manifest, [
            ...Object.entries(good).map(([name, body]): RawEntry => ({ header: { name }, body })),
            ...entries
          ], options.trailer)
        )
        const error = yield* failure(
          unpackTrees({
            file,
            out: path.join(root, "out"),
            replace: false,
            ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes })
          })
        )
        // Nothing beside the pack: no output, no temporary folder, nothing outside.
        assert.deepStrictEqual(yield* fs.readDirectory(root), ["hostile.tar.gz"])
        assert.isFalse(yield* fs.exists(path.join(root, "x")))
        // verify, given the same cap, refuses the pack too.
        const verified = yield* Effect.either(
          verifyPack(file, options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes })
        )
        assert.isTrue(Either.isLeft(verified))
        return error
      })

    it.scoped("a path with ..", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "t1/../../x" }, body: "owned" }], {
          listed: { "t1/../../x": "owned" }
        })
        assert.strictEqual(error.reason, "Unsafe")
        assert.include(error.message, "t1/../../x")
        assert.include(error.message, "..")
      })))

    it.scoped("a plain ../x", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "../x" }, body: "owned" }])
        assert.include(error.message, "../x")
      })))

    it.scoped("an absolute path", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "/tmp/vtree-owned" }, body: "owned" }])
        assert.strictEqual(error.reason, "Unsafe")
        assert.include(error.message, "/tmp/vtree-owned")
        assert.include(error.message, "absolute")
      })))

    it.scoped("a symbolic link", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{
          header: { name: "t1/frames/b.jpg", type: "symlink", linkname: "/etc/passwd" }
        }])
        assert.strictEqual(error.reason, "Unsafe")
        assert.include(error.message, "t1/frames/b.jpg")
        assert.include(error.message, "symbolic link")
      })))

    it.scoped("a hard link", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "t1/frames/b.jpg", type: "link", linkname: "t1/tree.json" } }])
        assert.include(error.message, "hard link")
      })))

    it.scoped("a device and a FIFO", () =>
      run(Effect.gen(function*() {
        const device = yield* refused([{
          header: { name: "t1/dev", type: "character-device", devmajor: 1, devminor: 3 }
        }])
        assert.include(device.message, "device")
        const fifo = yield* refused([{ header: { name: "t1/pipe", type: "fifo" } }])
        assert.include(fifo.message, "FIFO")
      })))

    it.scoped("a file the manifest does not list", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "t1/frames/extra.jpg" }, body: "x" }])
        assert.strictEqual(error.reason, "Unsafe")
        assert.include(error.message, "t1/frames/extra.jpg")
        assert.include(error.message, "not in the manifest")
      })))

    it.scoped("a file whose hash differs, after other files were written", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "t1/frames/b.jpg" }, body: "evil" }], {
          listed: { "t1/frames/b.jpg": "good" }
        })
        assert.strictEqual(error.reason, "Mismatch")
        assert.include(error.message, "t1/frames/b.jpg")
        assert.include(error.message, "sha256")
      })))

    it.scoped("a file listed but absent", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([], { listed: { "t1/frames/b.jpg": "good" } })
        assert.include(error.message, "t1/frames/b.jpg")
        assert.include(error.message, "missing")
      })))

    it.scoped("an escaping path hidden in the manifest is refused before any entry", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([], { listed: { "t1/../../evil": "x" } })
        assert.include(error.message, "manifest.json")
        assert.include(error.message, "t1/../../evil")
      })))

    it.scoped("a gzip bomb: an entry declaring more than the manifest says", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "t1/frames/b.jpg" }, body: new Uint8Array(4 * 1024 * 1024) }], {
          listed: { "t1/frames/b.jpg": "tiny" }
        })
        assert.strictEqual(error.reason, "TooLarge")
        assert.include(error.message, "t1/frames/b.jpg")
      })))

    it.scoped("a gzip bomb: a manifest declaring more than the cap", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([], { maxBytes: 5 })
        assert.strictEqual(error.reason, "TooLarge")
        assert.include(error.message, "manifest.json")
      })))

    it.scoped("a gzip bomb: megabytes of zeros after the entries", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([], { trailer: new Uint8Array(16 * 1024 * 1024) })
        assert.strictEqual(error.reason, "TooLarge")
      })))

    it.scoped("a pack without manifest.json first", () =>
      run(Effect.gen(function*() {
        const path = yield* Path.Path
        const root = yield* scopedTempDir("tree-pack")
        const file = path.join(root, "plain.tar.gz")
        yield* Effect.promise(async () =>
          writeFile(file, gzipSync(await tarOf([{ header: { name: "t1/tree.json" }, body: "{}" }])))
        )
        const error = yield* failure(unpackTrees({ file, out: path.join(root, "out"), replace: false }))
        assert.strictEqual(error.reason, "Malformed")
        assert.include(error.message, "manifest.json")
      })))

    it.scoped("a device given as the pack (it would never end)", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const root = yield* scopedTempDir("tree-pack")
        const error = yield* failure(unpackTrees({ file: "/dev/zero", out: path.join(root, "out"), replace: false }))
        assert.strictEqual(error.reason, "Malformed")
        assert.include(error.message, "not a regular file")
        assert.deepStrictEqual(yield* fs.readDirectory(root), [])
      })))

    it.scoped("a file that is not gzip at all", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const root = yield* scopedTempDir("tree-pack")
        const file = path.join(root, "notes.txt")
        yield* fs.writeFileString(file, "hello")
        const error = yield* failure(unpackTrees({ file, out: path.join(root, "out"), replace: false }))
        assert.strictEqual(error.reason, "Malformed")
        assert.include(error.message, file)
      })))

    it.scoped("a name with control characters is named rendered", () =>
      run(Effect.gen(function*() {
        const error = yield* refused([{ header: { name: "t1/\u001b]0;owned\u0007.jpg" }, body: "x" }])
        assert.notInclude(error.message, "\u001b")
        assert.include(error.message, "\\x1b")
      })))
  })

  describe("a tree whose ids or frame paths leave it is refused (issue #39)", () => {
    /** tree.json of a tree t1 whose first frame node has the id `id`, and its frame file. */
    const hostileTree = (id: string) => {
      const tree = syntheticTree({ videoId: "t1", scenes: 1, eventsPerScene: 1, framesPerEvent: 1 }) as any
      const frame = tree.nodes.t1_L1_000_L2_000_L3_000
      delete tree.nodes.t1_L1_000_L2_000_L3_000
      tree.nodes[id] = { ...frame, id }
      tree.nodes.t1_L1_000_L2_000.children_ids = [id]
      return { "t1/tree.json": JSON.stringify(tree), "t1/frames/L1_000_L2_000_L3_000.jpg": "jpeg" }
    }
    const escaping = "t1_../../../../home/someone/secret/photo"

    it.scoped("unpack and verify refuse a pack holding one, and unpack writes nothing", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const root = yield* scopedTempDir("tree-pack")
        const file = path.join(root, "hostile.tar.gz")
        const files = hostileTree(escaping)
        yield* Effect.promise(() =>
          writeHostilePack(
            file,
            manifestOf(files, ["t1"]),
            Object.entries(files).map(([name, body]): RawEntry => ({ header: { name }, body }))
          )
        )
        const error = yield* failure(unpackTrees({ file, out: path.join(root, "out"), replace: false }))
        assert.strictEqual(error.reason, "Unsafe")
        assert.include(error.message, "t1/tree.json")
        assert.include(error.message, "contains a path separator")
        assert.deepStrictEqual(yield* fs.readDirectory(root), ["hostile.tar.gz"])
        const verified = yield* failure(verifyPack(file))
        assert.strictEqual(verified.reason, "Unsafe")
        assert.include(verified.message, "contains a path separator")
      })))

    it.scoped("verify refuses an unpacked folder holding one, though every hash matches", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const dir = yield* scopedTempDir("tree-pack")
        const files = hostileTree(escaping)
        for (const [name, body] of Object.entries(files)) {
          yield* fs.makeDirectory(path.dirname(path.join(dir, name)), { recursive: true })
          yield* fs.writeFileString(path.join(dir, name), body)
        }
        yield* fs.writeFileString(path.join(dir, "manifest.json"), JSON.stringify(manifestOf(files, ["t1"])))
        const error = yield* failure(verifyPack(dir))
        assert.strictEqual(error.reason, "Unsafe")
        assert.include(error.message, "t1/tree.json")
        assert.include(error.message, "contains a path separator")
        // The same folder with a plain id verifies.
        const plain = hostileTree("t1_L1_000_L2_000_L3_000")
        yield* fs.writeFileString(path.join(dir, "t1", "tree.json"), plain["t1/tree.json"])
        yield* fs.writeFileString(path.join(dir, "manifest.json"), JSON.stringify(manifestOf(plain, ["t1"])))
        assert.strictEqual((yield* verifyPack(dir)).trees, 1)
      })))
  })

  describe("an interruption (Ctrl-C) leaves nothing behind", () => {
    it.scoped("pack interrupted while it writes the archive removes the partial file and keeps an earlier pack", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const { root, trees } = yield* treesFolder
        const out = path.join(root, "trees.tar.gz")
        yield* fs.writeFileString(out, "an earlier pack")
        const before = (yield* fs.readDirectory(root)).sort()
        // The second read of the sample's tree.json is the archive's (the first hashed it): stall there.
        const stalled = yield* Deferred.make<void>()
        const source = path.join(trees, sampleId, "tree.json")
        const fiber = yield* packTrees({ trees, videoIds: [], out, note: null }).pipe(
          stallingAt(source, 2, 100, stalled),
          Effect.fork
        )
        yield* Deferred.await(stalled)
        const partial = yield* until(
          Effect.map(fs.readDirectory(root), (names) => names.some((name) => name.endsWith(".partial")))
        )
        assert.isTrue(partial)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual((yield* fs.readDirectory(root)).sort(), before)
        assert.strictEqual(yield* fs.readFileString(out), "an earlier pack")
      })))

    it.scoped("unpack interrupted after some entries are written removes its folder and leaves --out untouched", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const { root, trees } = yield* treesFolder
        const file = path.join(root, "trees.tar.gz")
        yield* packTrees({ trees, videoIds: [], out: file, note: null })
        const before = (yield* fs.readDirectory(root)).sort()
        // Two thirds of the pack: the manifest and the synthetic tree arrive, the sample's frames do not all.
        const size = Number((yield* fs.stat(file)).size)
        const stalled = yield* Deferred.make<void>()
        const out = path.join(root, "unpacked")
        const fiber = yield* unpackTrees({ file, out, replace: false }).pipe(
          stallingAt(file, 1, Math.floor((size * 2) / 3), stalled),
          Effect.fork
        )
        yield* Deferred.await(stalled)
        const staged = Effect.gen(function*() {
          const staging = (yield* fs.readDirectory(root)).find((name) => name.startsWith(".unpacked.unpack-"))
          return staging !== undefined && (yield* fs.exists(path.join(root, staging, "synth01", "tree.json")))
        })
        assert.isTrue(yield* until(staged))
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual((yield* fs.readDirectory(root)).sort(), before)
        assert.isFalse(yield* fs.exists(out))
      })))

    it.scoped("unpack interrupted into an empty --out leaves it empty", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const { root, trees } = yield* treesFolder
        const file = path.join(root, "trees.tar.gz")
        yield* packTrees({ trees, videoIds: [], out: file, note: null })
        const out = path.join(root, "unpacked")
        yield* fs.makeDirectory(out)
        const before = (yield* fs.readDirectory(root)).sort()
        const stalled = yield* Deferred.make<void>()
        const fiber = yield* unpackTrees({ file, out, replace: false }).pipe(
          stallingAt(file, 1, 4096, stalled),
          Effect.fork
        )
        yield* Deferred.await(stalled)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual((yield* fs.readDirectory(root)).sort(), before)
        assert.deepStrictEqual(yield* fs.readDirectory(out), [])
      })))
  })

  describe("the output folder", () => {
    it.scoped("an existing non-empty folder is refused; --replace swaps an earlier unpack, never another folder", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const { root, trees } = yield* treesFolder
        const file = path.join(root, "trees.tar.gz")
        yield* packTrees({ trees, videoIds: [sampleId], out: file, note: null })
        // Someone's own folder: refused, with or without --replace, and left as it was.
        const mine = path.join(root, "mine")
        yield* fs.makeDirectory(mine)
        yield* fs.writeFileString(path.join(mine, "notes.txt"), "mine")
        const error = yield* failure(unpackTrees({ file, out: mine, replace: false }))
        assert.strictEqual(error.reason, "Exists")
        assert.include(error.message, mine)
        assert.include((yield* failure(unpackTrees({ file, out: mine, replace: true }))).message, "manifest.json")
        assert.deepStrictEqual(yield* fs.readDirectory(mine), ["notes.txt"])
        // An empty folder is fine; unpacking again needs --replace, which swaps in the new copy.
        const out = path.join(root, "out")
        yield* fs.makeDirectory(out)
        yield* unpackTrees({ file, out, replace: false })
        assert.strictEqual((yield* failure(unpackTrees({ file, out, replace: false }))).reason, "Exists")
        // A tree's cache (written when the tree is used) goes with the tree it belongs to.
        yield* fs.makeDirectory(path.join(out, sampleId, ".vtree"))
        yield* fs.writeFileString(path.join(out, sampleId, ".vtree", "embeddings-x.bin"), "cache")
        yield* unpackTrees({ file, out, replace: true })
        assert.isFalse(yield* fs.exists(path.join(out, sampleId, ".vtree")))
        yield* verifyPack(out)
        assert.deepStrictEqual((yield* fs.readDirectory(root)).sort(), ["mine", "out", "trees", "trees.tar.gz"])
      })))

    it.scoped("--replace deletes only what the earlier unpack wrote: other files there are named and kept (issue #39)", () =>
      run(Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const { root, trees } = yield* treesFolder
        const file = path.join(root, "trees.tar.gz")
        yield* packTrees({ trees, videoIds: [sampleId], out: file, note: null })
        const out = path.join(root, "out")
        yield* unpackTrees({ file, out, replace: false })
        // Built or imported there afterwards, the user's own notes, a file added inside an unpacked tree.
        const later = ["later01/tree.json", "later01/frames/a.jpg", "notes.txt", `${sampleId}/stray.txt`]
        for (const name of later) {
          yield* fs.makeDirectory(path.dirname(path.join(out, name)), { recursive: true })
          yield* fs.writeFileString(path.join(out, name), "mine")
        }
        yield* fs.makeDirectory(path.join(out, "empty-of-mine"))
        const error = yield* failure(unpackTrees({ file, out, replace: true }))
        assert.strictEqual(error.reason, "Exists")
        assert.include(error.message, out)
        assert.include(error.message, "4 files or folders")
        assert.include(error.message, "later01")
        assert.notInclude(error.message, "\n")
        for (const name of later) assert.strictEqual(yield* fs.readFileString(path.join(out, name)), "mine")
        assert.isTrue(yield* fs.exists(path.join(out, "empty-of-mine")))
        // Once they are moved out, --replace replaces the earlier unpack.
        for (const name of ["later01", "notes.txt", `${sampleId}/stray.txt`, "empty-of-mine"]) {
          yield* fs.remove(path.join(out, name), { recursive: true })
        }
        yield* unpackTrees({ file, out, replace: true })
        yield* verifyPack(out)
      })))
  })
})
