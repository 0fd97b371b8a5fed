import Compositor
import Dispatch
import StoryEncode
import StoryMedia
import Synchronization

/// Feeds one clip writer (or a recording's encoder) on a serial queue of its own, in frame order, with a bounded number of
/// frames waiting (x264 is slower than drawing at some sizes; the bound keeps memory flat).
/// A render with several files has a queue per file, so their encoders run side by side.
final class ClipQueue: Sendable {
    /// The writer is not thread-safe; it is only used on `queue`, one job at a time, and the
    /// mutex (never contended) lets the compiler check that no two threads hold it.
    private let writer: Mutex<any ClipEncoding>
    private let queue: DispatchQueue
    private let slots = DispatchSemaphore(value: 4)
    private let firstError = Mutex<MediaError?>(nil)
    /// What the writer writes, and whether it takes sound.
    let format: ExportFormat
    let carriesSound: Bool
    /// Whether the writer keeps the frames' alpha: it is given the canvas as drawn, not flattened.
    let keepsAlpha: Bool

    init(_ writer: sending any ClipEncoding) {
        format = writer.format
        carriesSound = writer.carriesSound
        keepsAlpha = writer.keepsAlpha
        queue = DispatchQueue(label: "live-stories.\(writer.format.rawValue)")
        self.writer = Mutex(writer)
    }
    /// Queues a frame (none for sound after the last frame) and the sound that follows it.
    func submit(frame: RGBAImage?, index: Int, audio: [Float]) {
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard firstError.withLock({ $0 == nil }) else { return }
            do throws(MediaError) {
                try writer.withLock { (writer) throws(MediaError) in
                    if let frame { try writer.append(frame: frame, index: index) }
                    if !audio.isEmpty { try writer.append(audio: audio) }
                }
            } catch {
                firstError.withLock { $0 = error }
            }
        }
    }

    /// Waits for the queued frames to be dropped or written, then removes the unfinished file:
    /// for a render that failed, so no temporary file outlives the process.
    func abandon() {
        queue.sync {
            writer.withLock { $0.abandon() }
        }
    }

    func finish() throws(MediaError) {
        let outcome: Result<Void, MediaError> = queue.sync {
            if let error = firstError.withLock({ $0 }) { return .failure(error) }
            do throws(MediaError) {
                try writer.withLock { (writer) throws(MediaError) in try writer.finish() }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }
}
