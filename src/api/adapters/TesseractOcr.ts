/** OCRProvider over tesseract.js in worker threads, trained data from node_modules. */
export { layer, make, type TesseractOptions } from "../../layers/tesseract/TesseractOcr.js"
