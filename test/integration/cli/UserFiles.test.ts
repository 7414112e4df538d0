// Every file a user gives is read only if it is a regular file under its cap: `--questions /dev/zero`
// once grew to 13.5 GB and a FIFO blocked for good. Integration, because the FIFO is made with mkfifo.
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { execFileSync } from "node:child_process"
import { truncateSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import { loadPrices } from "../../../src/cli/shared/Prices.js"
import { readUserFile, readUserFileAtOnce, readUserText, userFileCaps } from "../../../src/domain/UserFile.js"
import { loadQuestions } from "../../../src/programs/questions/QuestionLoader.js"
import { readTreeIndex } from "../../../src/programs/tree/TreeLoader.js"
import { scopedTempDir } from "../../support/TempDir.js"

describe("files a user gives", () => {
  it.scoped("a device, a FIFO and a folder are refused at once, naming what they are", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* scopedTempDir("user-files")
      const fifo = NodePath.join(dir, "questions.fifo")
      execFileSync("mkfifo", [fifo])
      const zero = yield* Effect.flip(loadQuestions("/dev/zero"))
      assert.include(zero.message, "/dev/zero: is a device, not a regular file")
      const pipe = yield* Effect.flip(loadQuestions(fifo))
      assert.include(pipe.message, "is a FIFO (named pipe), not a regular file")
      const prices = yield* Effect.flip(loadPrices(Option.some("/dev/zero")))
      assert.include(prices.message, "--prices /dev/zero: is a device")
      const treeDir = NodePath.join(dir, "video1")
      yield* fs.makeDirectory(treeDir)
      execFileSync("mkfifo", [NodePath.join(treeDir, "tree.json")])
      const tree = yield* Effect.flip(readTreeIndex(treeDir))
      assert.include(tree.message, "is a FIFO (named pipe), not a regular file")
      const folder = yield* Effect.flip(readUserText(dir, 10))
      assert.strictEqual(folder.reason, "NotAFile")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("a file over its cap is refused naming the cap; invalid UTF-8 naming the file and the byte", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("user-files")
      const big = NodePath.join(dir, "big.json")
      writeFileSync(big, "")
      truncateSync(big, userFileCaps.questions + 1) // sparse: nothing is written
      const tooLarge = yield* Effect.flip(loadQuestions(big))
      assert.include(tooLarge.message, "is larger than 256 MiB")
      const latin1 = NodePath.join(dir, "latin1.json")
      writeFileSync(
        latin1,
        Buffer.concat([Buffer.from("[{\"question\": \"caf"), Buffer.from([0xe9]), Buffer.from("\"}]")])
      )
      const invalid = yield* Effect.flip(loadQuestions(latin1))
      assert.include(
        invalid.message,
        `${latin1}: is not valid UTF-8 (byte 18) — save the file as UTF-8`,
        invalid.message
      )
      assert.strictEqual(yield* readUserText(latin1, 100), "[{\"question\": \"caf\uFFFD\"}]")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("the one-step reader (tree.json's) keeps the same rules and reads the same bytes", () =>
    Effect.gen(function*() {
      const dir = yield* scopedTempDir("user-files")
      const fifo = NodePath.join(dir, "tree.fifo")
      execFileSync("mkfifo", [fifo])
      // Opened without blocking: refused at once, where a plain open would wait for a writer for good.
      const pipe = yield* Effect.flip(readUserFileAtOnce(fifo, 100))
      assert.strictEqual(pipe.reason, "NotAFile")
      assert.include(pipe.message, "is a FIFO (named pipe), not a regular file")
      assert.include((yield* Effect.flip(readUserFileAtOnce("/dev/zero", 100))).message, "is a device")
      assert.strictEqual((yield* Effect.flip(readUserFileAtOnce(dir, 100))).reason, "NotAFile")
      const missing = yield* Effect.flip(readUserFileAtOnce(NodePath.join(dir, "none.json"), 100))
      assert.strictEqual(missing.reason, "NotFound")
      assert.include(missing.message, "does not exist — check the path")
      const inFile = yield* Effect.flip(readUserFileAtOnce(NodePath.join(fifo, "tree.json"), 100))
      assert.strictEqual(inFile.reason, "Unreadable")
      const big = NodePath.join(dir, "big.json")
      writeFileSync(big, "")
      truncateSync(big, 1001)
      assert.include((yield* Effect.flip(readUserFileAtOnce(big, 1000))).message, "is larger than 1 KiB")
      // The same bytes as the asynchronous reader: a file of its stated size, and one stating none (procfs).
      const plain = NodePath.join(dir, "plain.json")
      writeFileSync(plain, "x".repeat(200_000))
      for (const file of [plain, "/proc/self/cmdline"]) {
        const once = Buffer.from(yield* readUserFileAtOnce(file, userFileCaps.tree))
        const async = Buffer.from(yield* readUserFile(file, userFileCaps.tree))
        assert.isTrue(once.length > 0, file)
        assert.isTrue(once.equals(async), file)
      }
      // A file that states no size still stops one byte past the cap.
      assert.strictEqual((yield* Effect.flip(readUserFileAtOnce("/proc/self/cmdline", 3))).reason, "TooLarge")
    }).pipe(Effect.provide(NodeContext.layer)))
})
