/** The media tools: ffmpeg for frames and probes, sharp for thumbnails. */
import * as Ffmpeg from "../../layers/ffmpeg/Ffmpeg.js"
import * as SharpThumbnailer from "../../layers/sharp/SharpThumbnailer.js"

/** ffmpeg and ffprobe (VTREE_FFMPEG / VTREE_FFPROBE, else PATH). */
export const ffmpeg = Ffmpeg.layerConfig

/** Frame thumbnails for the pages `tree html` and `report --format html` write (sharp, loaded on first use). */
export const thumbnails = SharpThumbnailer.layer
