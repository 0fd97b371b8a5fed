import Compositor
import Foundation
import Glibc
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
        let path: String
    }

    private let jobs: BoundedQueue<Job>
    private let slots: DispatchSemaphore
    private let finished = DispatchGroup()
    private struct State {
        var firstError: CompositorError?
    }
    private let state = Mutex(State())
    private let options: PNGOptions
    private let clock: StageClock?
    /// The canvases of written frames, for the next frames to be drawn into.
    private let canvases: PicturePool

    /// How much less CPU share an encoder thread asks for than the render (`setpriority`).
    static let encoderNiceness: Int32 = 5

    init(options: PNGOptions, maxInFlight: Int, workers: Int, clock: StageClock? = nil) {
        precondition(maxInFlight >= 1 && workers >= 1, "a frame writer needs a slot and a thread")
        self.options = options
        self.slots = DispatchSemaphore(value: maxInFlight)
        self.jobs = BoundedQueue(capacity: maxInFlight)
        self.clock = clock
        canvases = PicturePool(capacity: maxInFlight)
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
        canvases.take()
    }

    /// Queues a frame; each file appears whole (temp file, then rename). The image's storage
    /// comes back through `reusableCanvas()` once it is written.
    func submit(_ image: consuming RGBAImage, to path: String) {
        slots.wait()
        jobs.put(Job(frame: image, path: path))
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
                state.withLock { if $0.firstError == nil { $0.firstError = error } }
            }
            canvases.put(job.frame)
            slots.signal()
        }
    }

    /// The first write error so far, if any.
    var error: CompositorError? { state.withLock { $0.firstError } }

    /// Waits for every queued frame; the encoder threads then end.
    func finish() throws(CompositorError) {
        close()
        finished.wait()
        if let error { throw error }
    }

    /// Lets the encoder threads end once the queued frames are written, without waiting for
    /// them: a render that fails before `finish()` must not leave them waiting for more.
    func close() {
        jobs.close()
    }
}
