import Compositor
import Foundation
import StoryModel

/// Every picture of a video file, one after another, as shown (turned, at its display aspect):
/// what `compare` reads a clip with. One decoder, made at `init` and freed at `close` (or with this).
package final class PictureSequence {
    private let decoder: MediaDecoder

    /// Opens the file at `path` (`MediaDecoder`: avformat_open_input and the video decoder).
    package init(path: String, limits: DecodeLimits = DecodeLimits()) throws(MediaError) {
        let source = MediaSource(uri: path, relativeTo: FileManager.default.currentDirectoryPath)
        decoder = try MediaDecoder(source: source, limits: limits)
    }

    /// The next picture and its time in seconds; nil after the last.
    package func next() throws(MediaError) -> (time: Double, image: RGBAImage)? {
        guard let picture = try decoder.nextPicture() else { return nil }
        let size = picture.shownSize
        let image = try decoder.rgba(picture, width: size.width, height: size.height)
        return (picture.time, image)
    }

    /// Passes over the next picture without converting it; false after the last.
    package func skip() throws(MediaError) -> Bool {
        try decoder.nextPicture() != nil
    }

    package func close() { decoder.close() }

}
