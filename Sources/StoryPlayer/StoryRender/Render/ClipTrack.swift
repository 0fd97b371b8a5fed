import Compositor
import StoryEncode
import StoryMedia
import StoryModel

/// The encoded files of a render (`--mp4`, `--webm`, `--gif`, `--webp`, `--apng`): each frame,
/// with its share of 48 kHz sound mixed from the stories on screen, through one clip queue per
/// file, so that the encoders run side by side. The sound is mixed once, and only when a file
/// carries it. Nothing at all without such a flag.
struct ClipTrack {
    private let queues: [ClipQueue]
    private let wantsSound: Bool
    /// The render's frame that is the clip's first (a shard's clip starts at its range).
    private var firstFrame: Int?
    /// Frames' sound not yet written, oldest first: a live story's waits `FrameSound.lagSeconds`
    /// for the stream to send it, and the sound of the frames after it waits in order behind it.
    private var waitingSound: [(frame: Int, sound: FrameSound)] = []
    /// The last frame submitted.
    private var lastFrame: Int?
    /// The file whose decoded sound `--loudness` measures afterwards: the first that carries sound.
    private let measuredPath: String?
    /// `--loudness`: the sound measured and held until the frames are written
    /// (`ClipTrack+Loudness`).
    private var loudnessPass: LoudnessPass?
    /// What `--loudness` did, once the files are finished.
    private(set) var loudness: LoudnessFigures?
    /// A recording's stream has no hole: a frame the realtime clock was too late to draw is
    /// the frame before it again, as a phone keeps its last picture on screen.
    private var repeatsSkippedFrames = false
    /// The last frame submitted, for `repeatsSkippedFrames`.
    private var lastCanvas: RGBAImage?
    /// Where a recording's canvas goes once the frame after it is submitted (it is encoded by
    /// then, and no longer the one to repeat), for the frames still to be drawn.
    private let spareCanvases: PicturePool?
    /// The frame rate of the frames submitted, for the skipped frames at the end.
    private var fps: Double?

    /// A recording's track: one queue, the recording's encoder, whose frames never skip.
    /// `spareCanvases` takes back each canvas once it is neither encoded nor repeated: a
    /// recording has no PNG writer to return them, and a new 3.7 MB canvas a frame (720x1280)
    /// was 12 % of the recorder's CPU in page faults and unmaps.
    init(recordingInto queue: ClipQueue, spareCanvases: PicturePool? = nil) {
        self.spareCanvases = spareCanvases
        queues = [queue]
        wantsSound = queue.carriesSound
        measuredPath = nil
        repeatsSkippedFrames = true
    }

    init(_ clips: [ClipOptions], loudness target: LoudnessTarget? = nil, canvas: Canvas) throws(RenderError) {
        var queues: [ClipQueue] = []
        for var options in clips {
            options.soundAfterFrames = target != nil && !options.format.isAnimation
            do {
                queues.append(ClipQueue(try ClipWriter(options: options, width: canvas.width, height: canvas.height, fps: canvas.fps)))
            } catch {
                throw RenderError.clip(error, format: options.format)
            }
        }
        self.queues = queues
        spareCanvases = nil
        wantsSound = queues.contains { $0.carriesSound }
        measuredPath = zip(clips, queues).first { $0.1.carriesSound }?.0.path
        if let target, wantsSound {
            do {
                loudnessPass = try LoudnessPass(target: target)
            } catch {
                throw RenderError.clip(error)
            }
        }
    }

    /// Queues frame `n` and its sound. `mix` gives the sound of `count` samples at the frame's
    /// time; the counts are rounded per frame from the clip's start, so they never drift.
    /// A recording's frames skipped as late take their sound from `soundAt` (their own time);
    /// a render's are silent, as its clip has no picture for them.
    /// A clip that keeps alpha (`--webm --alpha`, `--mov --alpha`) is given `withAlpha`, the
    /// canvas as drawn; the others `canvas`, flattened where it was not opaque.
    mutating func submit(_ canvas: RGBAImage, withAlpha: RGBAImage? = nil, frame n: Int, fps: Double, mix: (Int) -> FrameSound,
                         soundAt: (Double, Int) -> FrameSound = { FrameSound(count: $1) }) throws(RenderError) {
        guard !queues.isEmpty else { return }
        let first = firstFrame ?? n
        firstFrame = first
        var audio: [Float] = []
        if wantsSound {
            let samples = { (k: Int) in Int((Double(k) * Double(ItemAudio.rate) / fps).rounded()) }
            // Frames a realtime render drew too late are not in the clip, but their time is: their
            // sound is silence, so the sound after them stays with its pictures. A recording
            // repeats the picture before them instead, and gives them their own sound.
            if let last = lastFrame, n > last + 1 {
                for skipped in (last + 1)..<n {
                    let count = samples(skipped + 1 - first) - samples(skipped - first)
                    waitingSound.append((skipped, repeatsSkippedFrames ? soundAt(Double(skipped) / fps, count) : FrameSound(count: count)))
                }
            }
            waitingSound.append((n, mix(samples(n + 1 - first) - samples(n - first))))
            let lag = Int((FrameSound.lagSeconds * fps).rounded())
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
        }
        if repeatsSkippedFrames, let last = lastFrame, let previous = lastCanvas, n > last + 1 {
            for skipped in (last + 1)..<n {
                for queue in queues { queue.submit(frame: previous, index: skipped - first, audio: []) }
            }
        }
        if repeatsSkippedFrames {
            if let spareCanvases, let done = lastCanvas.take() { spareCanvases.put(done) }
            lastCanvas = canvas
        }
        lastFrame = n
        self.fps = fps
        for queue in queues { queue.submit(frame: queue.keepsAlpha ? withAlpha ?? canvas : canvas, index: n - first, audio: audio) }
    }

    /// A recording's last frames that the realtime clock was too late to draw have no later
    /// frame to bring them in (`repeatsSkippedFrames`): they are the last drawn frame again,
    /// with silence, so the stream holds every frame the recording counts.
    mutating func repeatSkippedLastFrames(_ late: [Int]) throws(RenderError) {
        guard repeatsSkippedFrames, let previous = lastCanvas, let last = lastFrame, let fps,
              let end = late.max(), end > last else { return }
        try submit(previous, frame: end, fps: fps) { FrameSound(count: $0) }
    }

    /// Removes every file not yet finished, once its queue is idle (`ClipQueue.abandon`).
    func abandonFiles() {
        for queue in queues { queue.abandon() }
    }

    /// Writes what is queued and closes the files; the first error, naming its file's format.
    mutating func finish() throws(RenderError) {
        let audio = waitingSound.flatMap { $0.sound.resolved() }
        waitingSound.removeAll()
        var figures: LoudnessFigures?
        if var pass = loudnessPass {
            loudnessPass = nil
            do {
                try pass.hold(audio)
                figures = try pass.release(into: queues.filter(\.carriesSound))
            } catch {
                throw RenderError.clip(error)
            }
        }
        var firstError: RenderError?
        for queue in queues {
            if figures == nil && !audio.isEmpty { queue.submit(frame: nil, index: 0, audio: audio) }
            do {
                try queue.finish()
            } catch {
                firstError = firstError ?? RenderError.clip(error, format: queue.format)
            }
        }
        if let firstError { throw firstError }
        if let figures, let measuredPath {
            do {
                loudness = try LoudnessPass.measured(figures, clip: measuredPath)
            } catch {
                throw RenderError.clip(error)
            }
        }
    }
}
