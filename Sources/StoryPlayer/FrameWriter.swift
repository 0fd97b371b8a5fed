import Compositor
import Dispatch
import Foundation

/// Encodes and writes frames on a pool of threads, with a bounded number in flight.
///
/// PNG encoding is the slowest stage, so it runs beside the rasterizer. `submit` blocks when
/// `maxInFlight` frames are already queued (backpressure), which keeps memory bounded.
final class FrameWriter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "live-stories.png", attributes: .concurrent)
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var firstError: CompositorError?
    private let options: PNGOptions

    init(options: PNGOptions, maxInFlight: Int) {
        self.options = options
        self.slots = DispatchSemaphore(value: maxInFlight)
    }

    /// Queues a frame; each file appears whole (temp file, then rename).
    func submit(_ image: RGBAImage, to path: String) {
        slots.wait()
        let options = self.options
        queue.async(group: group) { [self] in
            defer { slots.signal() }
            do throws(CompositorError) {
                try image.writePNG(to: path, options: options)
            } catch {
                lock.withLock { if firstError == nil { firstError = error } }
            }
        }
    }

    /// The first write error so far, if any.
    var error: CompositorError? { lock.withLock { firstError } }

    /// Waits for every queued frame.
    func finish() throws(CompositorError) {
        group.wait()
        if let error { throw error }
    }
}
