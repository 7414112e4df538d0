// Import writes over a tree only when an import wrote it: a tree \`vtree build\` made holds vision-model cards and
// frames that an import would replace, so it is refused unless --force.
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option, Schema } from "effect"
import { Marker, markerFile, type TreeFolder } from "../builder/TreeFolder.js"
import { TreeImportError } from "./ImportedVideo.js"

/** A tree.json whose build record names no import, or a marker of `vtree build`'s: who built the tree, else undefined. */
const builderOf = (folder: TreeFolder) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const treeFile = path.join(folder.dir, "tree.json")
    if (yield* fs.exists(treeFile).pipe(Effect.orElseSucceed(() => false))) {
      const record = yield* fs.readFileString(treeFile).pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(BuildRecord))),
        Effect.option
      )
      if (Option.isSome(record)) {
        const build = record.value.build
        const madeBy = build.made_by ?? "vtree build"
        return madeBy === importedBy ? undefined : { madeBy, models: build.models }
      }
    }
    const marker = yield* fs.readFileString(path.join(folder.dir, ".vtree", markerFile)).pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.parseJson(Marker))),
      Effect.option
    )
    return Option.isSome(marker) && marker.value.made_by !== importedBy
      ? { madeBy: marker.value.made_by, models: undefined }
      : undefined
  })

/** Who an import says wrote a tree (its build record and folder marker). */
export const importedBy = "vtree tree import"
const BuildRecord = Schema.Struct({
  build: Schema.Struct({
    made_by: Schema.optional(Schema.String),
    models: Schema.optional(Schema.Struct({ vlm: Schema.optional(Schema.NullOr(Schema.String)) }))
  })
})

/** Refuses a folder holding a tree that `vtree build` (or anything but an import) wrote. */
export const refuseBuiltTree = (folder: TreeFolder) =>
  Effect.gen(function*() {
    const builder = yield* builderOf(folder)
    if (builder === undefined) return
    const vlm = builder.models?.vlm
    return yield* new TreeImportError({
      reason: "Refused",
      message: `${folder.dir}: a tree ${builder.madeBy} made${
        typeof vlm === "string" ? ` (cards by ${vlm})` : ""
      }, not an import — importing would replace its cards and frames; pass --force to replace it, or import into another --out`
    })
  })
