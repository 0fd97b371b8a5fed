internal import CFFmpeg
import StoryMedia

/// The interleaved stereo samples an encoder has been given and not yet encoded, cut into its
/// frames: `ClipWriter`'s and `LiveEncoder`'s sound, the same way.
struct PendingSound {
    private var samples: [Float] = []
    /// Samples (per channel) handed out in frames so far: the next frame's timestamp.
    private(set) var written: Int64 = 0

    mutating func append(_ more: [Float]) { samples.append(contentsOf: more) }

    var isEmpty: Bool { samples.isEmpty }

    /// Fills `sound` (a frame of `size` samples, planar or `interleaved`) with the next frame's
    /// samples and stamps it; false when fewer than a frame wait and it is not the end (`flush`).
    /// At the end, the last frame goes as long as its sound when the encoder takes a short last
    /// frame (`shortLast`), else padded with silence.
    mutating func fill(_ sound: Frame, size: Int, interleaved: Bool, flush: Bool, shortLast: Bool) throws(MediaError) -> Bool {
        guard samples.count >= size * 2 || (flush && !samples.isEmpty) else { return false }
        let writable = sound.makeWritable()
        guard writable >= 0 else { throw MediaError(.convert, "cannot reuse the audio frame", averror: writable) }
        let available = min(size, samples.count / 2)
        if interleaved {
            guard let plane = sound.plane(0)?.rows else { throw MediaError(.convert, "cannot reuse the audio frame") }
            let out = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
            for i in 0..<(size * 2) { out[i] = i < available * 2 ? samples[i] : 0 }
        } else {
            guard let leftPlane = sound.plane(0)?.rows, let rightPlane = sound.plane(1)?.rows else {
                throw MediaError(.convert, "cannot reuse the audio frame")
            }
            let left = UnsafeMutableRawPointer(leftPlane).assumingMemoryBound(to: Float.self)
            let right = UnsafeMutableRawPointer(rightPlane).assumingMemoryBound(to: Float.self)
            for i in 0..<size {
                left[i] = i < available ? samples[i * 2] : 0
                right[i] = i < available ? samples[i * 2 + 1] : 0
            }
        }
        samples.removeFirst(available * 2)
        sound.pts = written
        let short = available < size && shortLast
        sound.sampleCount = Int32(short ? available : size)
        written += Int64(short ? available : size)
        return true
    }
}
