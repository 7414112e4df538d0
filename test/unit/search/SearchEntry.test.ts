import { assert, describe, it } from "@effect/vitest"
import { Layer } from "effect"
import * as Library from "../../../src/index.js"
import * as SearchEntry from "../../../src/search.js"

describe("the vtree/search entry point", () => {
  it("carries the hub with its live providers and the URL check; the main entry stays free of them", () => {
    const { Search } = SearchEntry
    assert.isTrue(Layer.isLayer(Search.LiveSearchHub.layerConfig))
    assert.isTrue(Layer.isLayer(Search.LiveSearchHub.layer(Search.SearchSettings.make({ enabled: true }))))
    assert.isFalse(Search.checkUrl("http://127.0.0.1/admin").ok)
    assert.notProperty(Library, "Search")
  })
})
