import Compositor
import Foundation
import Glibc
import StoryBase
import StoryMedia
import Synchronization

#if canImport(Glibc)
#endif

/// Encodes and writes frames on threads of its own, with a bounded number in flight.
///
/// PNG encoding is the slowest stage, so it runs beside the rasterizer. `submit` blocks when
/// `maxInFlight` frames are already queued or being encoded (backpressure), which keeps memory
/// bounded. Frames are written to their own paths, so the order they finish in does not matter.
///
/// The encoder threads run at a lower scheduling priority (nice +5) than the render and decode
/// threads. Encoding has a queue to work from; a decode thread delivering the picture the
/// render waits for (a story opening mid-swipe) does not. Giving that one the core first lets
/// the queued frames fill the time the render would otherwise leave a core idle.
final class FrameWriter: Sendable {
    private struct Job: Sendable {
        let frame: RGBAImage
        let index: Int
        let path: String
    }

    /// A frame whose file could not be written, and why.
    struct Failure: Sendable {
        let frame: Int
        let path: String
        let error: CompositorError
    }

    private let jobs: BoundedQueue<Job>
    private let slots: DispatchSemaphore
    private let finished = DispatchGroup()
    private struct State {
        /// The lowest-numbered frame that failed: every frame before it is on disk once the
        /// writer has finished, since frames are encoded out of order by several threads.
        var failure: Failure?
        /// The highest-numbered frame submitted.
        var lastSubmitted: Int?
    }
    private let state = Mutex(State())
    private let options: PNGOptions
    private let clock: StageClock?
    /// The canvases of written frames, for the next frames to be drawn into; a recording's clip
    /// track gives its canvases back here too.
    let spareCanvases: PicturePool

    /// How much less CPU share an encoder thread asks for than the render (`setpriority`).
    static let encoderNiceness: Int32 = 5

    init(options: PNGOptions, maxInFlight: Int, workers: Int, clock: StageClock? = nil) {
        precondition(maxInFlight >= 1 && workers >= 1, "a frame writer needs a slot and a thread")
        self.options = options
        self.slots = DispatchSemaphore(value: maxInFlight)
        self.jobs = BoundedQueue(capacity: maxInFlight)
        self.clock = clock
        spareCanvases = PicturePool(capacity: maxInFlight)
        for index in 0..<workers {
            finished.enter()
            let thread = Thread { [self] in
                #if canImport(Glibc)
                // On Linux the nice value belongs to the calling thread.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, FrameWriter.encoderNiceness)
                #endif
                work()
                finished.leave()
            }
            thread.name = "png \(index)"
            thread.start()
        }
    }

    /// A canvas a finished frame no longer needs, to draw the next frame into without allocating.
    func reusableCanvas() -> RGBAImage? {
        spareCanvases.take()
    }

    /// Queues a frame; each file appears whole (temp file, then rename). The image's storage
    /// comes back through `reusableCanvas()` once it is written.
    func submit(_ image: consuming RGBAImage, frame index: Int, to path: String) {
        slots.wait()
        state.withLock { $0.lastSubmitted = max($0.lastSubmitted ?? index, index) }
        jobs.put(Job(frame: image, index: index, path: path))
    }

    /// One encoder thread: each keeps its PNGEncoder, whose buffer has grown to a frame's size.
    private func work() {
        let encoder = PNGEncoder(options: options)
        while let job = jobs.take() {
            do throws(CompositorError) {
                let started = StageClock.threadCPUSeconds()
                try encoder.write(job.frame, to: job.path)
                clock?.add(.encode, StageClock.threadCPUSeconds() - started)
            } catch {
                state.withLock { state in
                    if state.failure.map({ job.index < $0.frame }) ?? true {
                        state.failure = Failure(frame: job.index, path: job.path, error: error)
                    }
                }
            }
            spareCanvases.put(job.frame)
            slots.signal()
        }
    }

    /// The lowest-numbered frame that could not be written so far, if any.
    var failure: Failure? { state.withLock { $0.failure } }

    /// The highest-numbered frame submitted so far.
    var lastSubmitted: Int? { state.withLock { $0.lastSubmitted } }

    /// Waits for every queued frame; the encoder threads then end.
    func finish() throws(CompositorError) {
        waitForQueuedFrames()
        if let failure { throw failure.error }
    }

    /// Lets the queued frames be written (or fail) and waits for the encoder threads to end:
    /// after it, no frame's temporary file is open, and `failure` is final.
    func waitForQueuedFrames() {
        close()
        finished.wait()
    }

    /// Lets the encoder threads end once the queued frames are written, without waiting for
    /// them: a render that fails before `finish()` must not leave them waiting for more.
    func close() {
        jobs.close()
    }
}
