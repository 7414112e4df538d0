/** OCRProvider over MonkeyOCR servers (needs an HttpClient). */
export { layer, layerConfig, make } from "../../layers/monkeyocr/MonkeyOcr.js"
