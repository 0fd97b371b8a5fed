import Compositor
import StoryMedia
import StoryModel

/// The MP4 of a render (`--mp4`): each frame with its share of 48 kHz sound, mixed from the
/// stories on screen, through the clip writer's queue. Nothing at all without `--mp4`.
struct ClipTrack {
    private let queue: ClipQueue?
    /// The render's frame that is the clip's first (a shard's clip starts at its range).
    private var firstFrame: Int?
    /// Frames' sound not yet written, oldest first: a live story's waits `FrameSound.lagSeconds`
    /// for the stream to send it, and the sound of the frames after it waits in order behind it.
    private var waitingSound: [(frame: Int, sound: FrameSound)] = []
    /// The last frame submitted.
    private var lastFrame: Int?
    private let path: String?
    /// `--loudness`: the sound measured and held until the frames are written
    /// (`ClipTrack+Loudness`).
    private var loudnessPass: LoudnessPass?
    /// What `--loudness` did, once the clip is finished.
    private(set) var loudness: LoudnessFigures?

    init(_ options: ClipOptions?, loudness target: LoudnessTarget? = nil, canvas: Canvas) throws(RenderError) {
        path = options?.path
        do {
            queue = try options.map { options throws(MediaError) in
                var options = options
                options.soundAfterFrames = target != nil
                return ClipQueue(try ClipWriter(options: options, width: canvas.width, height: canvas.height, fps: canvas.fps))
            }
            if let target, queue != nil { loudnessPass = try LoudnessPass(target: target) }
        } catch {
            throw RenderError.clip(error)
        }
    }

    /// Queues frame `n` and its sound. `mix` gives the sound of `count` samples at the frame's
    /// time; the counts are rounded per frame from the clip's start, so they never drift.
    mutating func submit(_ canvas: RGBAImage, frame n: Int, fps: Double, mix: (Int) -> FrameSound) throws(RenderError) {
        guard let queue else { return }
        let first = firstFrame ?? n
        firstFrame = first
        let samples = { (k: Int) in Int((Double(k) * Double(ItemAudio.rate) / fps).rounded()) }
        // Frames a realtime render drew too late are not in the clip, but their time is: their
        // sound is silence, so the sound after them stays with its pictures.
        if let last = lastFrame, n > last + 1 {
            for skipped in (last + 1)..<n {
                waitingSound.append((skipped, FrameSound(count: samples(skipped + 1 - first) - samples(skipped - first))))
            }
        }
        lastFrame = n
        waitingSound.append((n, mix(samples(n + 1 - first) - samples(n - first))))
        let lag = Int((FrameSound.lagSeconds * fps).rounded())
        var audio: [Float] = []
        while let oldest = waitingSound.first, oldest.sound.isComplete || oldest.frame <= n - lag {
            audio += oldest.sound.resolved()
            waitingSound.removeFirst()
        }
        if loudnessPass != nil {
            do {
                try loudnessPass!.hold(audio)
            } catch {
                throw RenderError.clip(error)
            }
            audio = []
        }
        queue.submit(frame: canvas, index: n - first, audio: audio)
    }

    /// Writes what is queued and closes the file.
    mutating func finish() throws(RenderError) {
        guard let queue else { return }
        let audio = waitingSound.flatMap { $0.sound.resolved() }
        waitingSound.removeAll()
        do {
            if var pass = loudnessPass {
                loudnessPass = nil
                try pass.hold(audio)
                let figures = try pass.release(into: queue)
                try queue.finish()
                if let path { loudness = try LoudnessPass.measured(figures, clip: path) }
                return
            }
            if !audio.isEmpty { queue.submit(frame: nil, index: 0, audio: audio) }
            try queue.finish()
        } catch {
            throw RenderError.clip(error)
        }
    }
}
