import Compositor
import Dispatch
import Foundation

/// Feeds the MP4 writer on a serial queue of its own, in frame order, with a bounded number of
/// frames waiting (x264 is slower than drawing at some sizes; the bound keeps memory flat).
final class ClipQueue: @unchecked Sendable {
    private let writer: ClipWriter
    private let queue = DispatchQueue(label: "live-stories.mp4")
    private let slots = DispatchSemaphore(value: 4)
    private let lock = NSLock()
    private var firstError: MediaError?

    init(_ writer: ClipWriter) {
        self.writer = writer
    }

    func submit(frame: RGBAImage, index: Int, audio: [Float]) {
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard lock.withLock({ firstError == nil }) else { return }
            do throws(MediaError) {
                try writer.append(frame: frame, index: index)
                try writer.append(audio: audio)
            } catch {
                lock.withLock { firstError = error }
            }
        }
    }

    func finish() throws(MediaError) {
        let outcome: Result<Void, MediaError> = queue.sync {
            if let error = lock.withLock({ firstError }) { return .failure(error) }
            do throws(MediaError) {
                try writer.finish()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }
}
