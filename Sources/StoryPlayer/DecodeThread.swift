import Compositor
import Foundation

/// What a decode thread hands to its player.
enum DecodedEvent {
    /// A picture, already converted to canvas-size RGBA, at `time` seconds of media time.
    case picture(time: Double, image: RGBAImage)
    /// The data ended normally (or a still image was delivered).
    case end
    /// Decoding failed; nothing follows.
    case failed(MediaError)
}

/// The thread that decodes one play of one item: demux, decode and convert, into a small bounded
/// queue, ahead of the render thread. One per playing story; it ends with its player.
///
/// The decoder belongs to this thread while it runs. `stop()` asks it to finish, waits for it,
/// then frees every FFmpeg object before returning.
final class DecodeThread: @unchecked Sendable {
    private let decoder: MediaDecoder
    private let queue: BoundedQueue<DecodedEvent>
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopRequested = false
    private var stopped = false

    /// Starts decoding `decoder` at once; pictures are converted to `width`×`height`.
    init(decoder: MediaDecoder, width: Int, height: Int, capacity: Int, clock: StageClock?, name: String) {
        self.decoder = decoder
        self.queue = BoundedQueue(capacity: capacity)
        let thread = Thread { [self] in
            run(width: width, height: height, clock: clock)
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// The next event, waiting for the decoder if it has not produced one yet.
    func next() -> DecodedEvent {
        queue.take() ?? .end
    }

    /// Ends the thread and frees the decoder. Safe to call more than once.
    func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            stopRequested = true
            return !stopped
        }
        guard first else { return }
        queue.close()
        done.wait()
        decoder.close()
    }

    private var shouldStop: Bool { lock.withLock { stopRequested } }

    private func run(width: Int, height: Int, clock: StageClock?) {
        do {
            while !shouldStop {
                let picture = try measure(clock, .decode) { () throws(MediaError) in try decoder.nextPicture() }
                guard let picture else {
                    queue.put(.end)
                    return
                }
                let image = try measure(clock, .convert) { () throws(MediaError) in
                    try decoder.rgba(picture, width: width, height: height)
                }
                guard queue.put(.picture(time: picture.time, image: image)) else { return }
                if decoder.isStill {
                    queue.put(.end)
                    return
                }
            }
        } catch {
            queue.put(.failed(error))
        }
    }

    private func measure<T>(_ clock: StageClock?, _ stage: PipelineStage, _ body: () throws(MediaError) -> T) throws(MediaError) -> T {
        guard let clock else { return try body() }
        let result: Result<T, MediaError> = clock.measure(stage) {
            do throws(MediaError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
