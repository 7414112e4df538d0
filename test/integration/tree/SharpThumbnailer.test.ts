import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import jpeg from "jpeg-js"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import * as SharpThumbnailer from "../../../src/layers/sharp/SharpThumbnailer.js"
import { tempDir } from "../../support/harness/Cli.js"

const temp = tempDir()
afterAll(() => temp.cleanup())

const frame = (width: number, height: number) => {
  const data = Buffer.alloc(width * height * 4, 200)
  const file = join(temp.dir, `${width}x${height}.jpg`)
  writeFileSync(file, jpeg.encode({ width, height, data }, 90).data)
  return file
}

describe("SharpThumbnailer", () => {
  it.effect("downscales a frame to at most 320 px wide, keeping its aspect, and never enlarges a small one", () =>
    Effect.gen(function*() {
      const { thumbnail } = SharpThumbnailer.make
      const big = yield* thumbnail(frame(1280, 720), 320)
      assert.deepStrictEqual([big.width, big.height], [320, 180])
      const decoded = jpeg.decode(big.jpeg)
      assert.deepStrictEqual([decoded.width, decoded.height], [320, 180])
      const small = yield* thumbnail(frame(160, 90), 320)
      assert.deepStrictEqual([small.width, small.height], [160, 90])
    }))

  it.effect("with a height too, fits the image inside the box: the long side is the one bounded", () =>
    Effect.gen(function*() {
      const { thumbnail } = SharpThumbnailer.make
      const portrait = yield* thumbnail(frame(1000, 2000), 768, 768)
      assert.deepStrictEqual([portrait.width, portrait.height], [384, 768])
      const landscape = yield* thumbnail(frame(1920, 1080), 768, 768)
      assert.deepStrictEqual([landscape.width, landscape.height], [768, 432])
    }))

  it.effect("names the file when it is missing or not an image", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(SharpThumbnailer.make.thumbnail(join(temp.dir, "nope.jpg"), 320))
      assert.strictEqual(missing.reason, "Unreadable")
      assert.include(missing.message, "nope.jpg: not found")
      const text = join(temp.dir, "text.jpg")
      writeFileSync(text, "<html>not a frame</html>")
      const bad = yield* Effect.flip(SharpThumbnailer.make.thumbnail(text, 320))
      assert.strictEqual(bad.reason, "NotMedia")
      assert.include(bad.message, "text.jpg: not an image")
    }))
})
