import Foundation
import StoryMedia
import StoryModel

extension LoudnessMeter {
    /// The loudness of a file's sound as a player hears it: its audio stream decoded
    /// (`ItemAudio`, 48 kHz stereo) and measured. `--loudness` measures the MP4 it has just
    /// written this way, so the figures it reports include what the AAC encoder did.
    package static func measure(file path: String) throws(MediaError) -> LoudnessMeasurement {
        // Made absolute first, so a relative path with a colon is not read as a URL's scheme.
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let sound = try ItemAudio(source: MediaSource(uri: absolute, relativeTo: "/"), limits: DecodeLimits())
        defer { sound.close() }
        let meter = try LoudnessMeter()
        while let block = try sound.nextBlock() {
            try block.samples.withUnsafeBufferPointer { (samples) throws(MediaError) in try meter.add(samples) }
        }
        return try meter.finish()
    }
}
