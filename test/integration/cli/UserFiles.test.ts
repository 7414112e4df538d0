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
import { readUserText, userFileCaps } from "../../../src/domain/UserFile.js"
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
})
