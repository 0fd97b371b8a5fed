import Compositor
import StoryMedia

/// What a render's clip queue feeds, frame by frame, on its own thread: a file of an
/// `ExportFormat` (`ClipWriter`), or one encode fanned out to a recording's live outputs
/// (`LiveEncoder`). Used from one thread at a time.
package protocol ClipEncoding: AnyObject {
    /// What it encodes, for messages.
    var format: ExportFormat { get }
    /// Whether it takes sound (`append(audio:)` is a no-op otherwise).
    var carriesSound: Bool { get }
    /// Whether it keeps the frames' alpha (so it is given them unflattened).
    var keepsAlpha: Bool { get }
    /// Frame `index`: presentation time index / fps.
    func append(frame image: RGBAImage, index: Int) throws(MediaError)
    /// Interleaved stereo samples at 48 kHz, following the previous ones.
    func append(audio samples: [Float]) throws(MediaError)
    /// Flushes the encoders and finishes what they write.
    func finish() throws(MediaError)
    /// Gives up: what is unfinished is closed and, where it is a temporary file, removed.
    func abandon()
}

extension ClipWriter: ClipEncoding {}

extension ClipEncoding {
    package var keepsAlpha: Bool { false }
}
