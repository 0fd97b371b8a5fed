import Compositor

/// The MP4 of a render (`--mp4`): each frame with its share of 48 kHz sound, mixed from the
/// stories on screen, through the clip writer's queue. Nothing at all without `--mp4`.
struct ClipTrack {
    private let queue: ClipQueue?
    /// The render's frame that is the clip's first (a shard's clip starts at its range).
    private var firstFrame: Int?

    init(_ options: ClipOptions?, canvas: Canvas) throws(RenderError) {
        do {
            queue = try options.map { options throws(MediaError) in
                ClipQueue(try ClipWriter(options: options, width: canvas.width, height: canvas.height, fps: canvas.fps))
            }
        } catch {
            throw RenderError.clip(error)
        }
    }

    /// Queues frame `n` and its sound. `mix` gives the sound of `count` samples at the frame's
    /// time; the counts are rounded per frame from the clip's start, so they never drift.
    mutating func submit(_ canvas: RGBAImage, frame n: Int, fps: Double, mix: (Int) -> [Float]) {
        guard let queue else { return }
        let first = firstFrame ?? n
        firstFrame = first
        let samples = { (k: Int) in Int((Double(k) * Double(ItemAudio.rate) / fps).rounded()) }
        queue.submit(frame: canvas, index: n - first, audio: mix(samples(n + 1 - first) - samples(n - first)))
    }

    /// Writes what is queued and closes the file.
    func finish() throws(RenderError) {
        guard let queue else { return }
        do {
            try queue.finish()
        } catch {
            throw RenderError.clip(error)
        }
    }
}
