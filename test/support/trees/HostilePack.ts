// Pack files built entry by entry with the tar library itself, for the refusals of `vtree tree unpack|verify`:
// whatever headers a hostile sender could write (traversal, links, devices, lies about sizes), gzipped.
import { createHash } from "node:crypto"
import { writeFile } from "node:fs/promises"
import { gzipSync } from "node:zlib"
import { type Header, pack } from "tar-stream"

export interface RawEntry {
  readonly header: Partial<Header> & Pick<Header, "name">
  readonly body?: Uint8Array | string
}

export const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex")

/** A manifest listing `files` (path → bytes) of the trees `folders`, as `vtree tree pack` writes it. */
export const manifestOf = (files: Record<string, Uint8Array | string>, folders: ReadonlyArray<string>) => ({
  format: "vtree-pack",
  format_version: 1,
  vtree_version: "0.1.0",
  note: null,
  trees: folders.map((folder) => ({ folder, video_id: folder, build: null })),
  files: Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, body]) => ({
    path,
    size: Buffer.byteLength(body),
    sha256: sha256(body)
  }))
})

/** The tar bytes of `entries` in order (not gzipped). */
export const tarOf = async (entries: ReadonlyArray<RawEntry>): Promise<Buffer> => {
  const archive = pack()
  const chunks: Array<Buffer> = []
  const done = (async () => {
    for await (const chunk of archive) chunks.push(Buffer.from(chunk as Uint8Array))
  })()
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => {
      const body = entry.body ?? ""
      archive.entry(
        {
          size: entry.header.type === undefined || entry.header.type === "file" ? Buffer.byteLength(body) : 0,
          ...entry.header
        },
        entry.header.type === undefined || entry.header.type === "file" ? body : "",
        (error) => (error ? reject(error) : resolve())
      )
    })
  }
  archive.finalize()
  await done
  return Buffer.concat(chunks)
}

/** Writes `manifest.json` then `entries`, gzipped, to `file`; `trailer` is appended to the tar before gzip. */
export const writeHostilePack = async (
  file: string,
  manifest: unknown,
  entries: ReadonlyArray<RawEntry>,
  trailer: Uint8Array = new Uint8Array()
): Promise<void> => {
  const tar = await tarOf([{ header: { name: "manifest.json" }, body: JSON.stringify(manifest) }, ...entries])
  await writeFile(file, gzipSync(Buffer.concat([tar, trailer])))
}
