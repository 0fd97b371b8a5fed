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
    private var spareCanvases: [RGBAImage] = []
    /// One per frame in flight at most; each keeps its grown buffer for the next frame.
    private var spareEncoders: [PNGEncoder] = []
    private let options: PNGOptions
    private let clock: StageClock?

    init(options: PNGOptions, maxInFlight: Int, clock: StageClock? = nil) {
        self.options = options
        self.slots = DispatchSemaphore(value: maxInFlight)
        self.clock = clock
    }

    /// A canvas a finished frame no longer needs, to draw the next frame into without allocating.
    func reusableCanvas() -> RGBAImage? {
        lock.withLock { spareCanvases.popLast() }
    }

    /// Queues a frame; each file appears whole (temp file, then rename). The image's storage
    /// comes back through `reusableCanvas()` once it is written.
    func submit(_ image: consuming RGBAImage, to path: String) {
        slots.wait()
        let options = self.options
        let clock = self.clock
        let frame = image
        queue.async(group: group) { [self] in
            defer { slots.signal() }
            let encoder = lock.withLock { spareEncoders.popLast() } ?? PNGEncoder(options: options)
            do throws(CompositorError) {
                let started = StageClock.threadCPUSeconds()
                try encoder.write(frame, to: path)
                clock?.add(.encode, StageClock.threadCPUSeconds() - started)
            } catch {
                lock.withLock { if firstError == nil { firstError = error } }
            }
            lock.withLock {
                spareCanvases.append(frame)
                spareEncoders.append(encoder)
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
