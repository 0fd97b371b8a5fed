import StoryMedia

/// Settings of one encoded file of a render: `--mp4`, `--webm`, `--gif`, `--webp`, `--apng`.
public struct ClipOptions: Sendable {
    public var path: String
    public var format: ExportFormat
    /// The encoder's constant rate factor, on its own scale (`ExportFormat.crfRange`): lower is
    /// better and larger. Unused by the animations.
    public var crf: Int
    /// x264's and x265's speed preset (`--x264-preset`).
    public var preset = ClipOptions.defaultPreset
    /// The sound's bit rate (AAC or Opus).
    public var audioBitRate = 128_000
    /// A cap on the video's bit rate (VBR: the crf's quality, never more than this), with a
    /// buffer of two seconds at that rate; nil: the crf alone decides.
    public var maxBitRate: Int?
    /// Frames from one keyframe to the next (closed GOPs); nil: one second.
    public var gopFrames: Int?
    /// x264's tuning (`zerolatency` for a recording: no look-ahead, no B-frames, so a picture
    /// leaves the encoder as soon as it is drawn); nil: none.
    public var tune: String?
    /// The H.264 profile (`high`); nil: the encoder's choice.
    public var profile: String?
    /// An animation's width (its height follows the canvas's aspect) and frame rate: a GIF of
    /// a phone-sized canvas at 30 fps would be tens of megabytes.
    public var animationWidth = ClipOptions.defaultAnimationWidth
    public var animationFPS = ClipOptions.defaultAnimationFPS
    /// The sound is written after the last frame (`--loudness` holds it to measure it whole):
    /// the muxer keeps the video packets until it comes (`max_interleave_delta` 0), so the file
    /// is interleaved all the same.
    public var soundAfterFrames = false
    /// The frames' alpha is kept (`--alpha`), where the format carries it (`carriesAlpha`): a
    /// transparent background, or `--overlay-only`, stays transparent in the file.
    public var keepsAlpha = false

    public static let defaultCRF = ExportFormat.mp4H264.defaultCRF
    public static let defaultPreset = "veryfast"
    public static let defaultAnimationWidth = 480
    public static let defaultAnimationFPS = 15.0
    /// The animation widths and rates accepted.
    public static let animationWidths = 16...4096
    public static let animationRates = 1.0...60.0
    /// libx264's presets, fastest first (libx265 has the same names).
    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower",
                                 "veryslow", "placebo"]

    public init(path: String, format: ExportFormat = .mp4H264) {
        self.path = path
        self.format = format
        crf = format.defaultCRF
    }

    /// An animation's size for a canvas of `width`×`height`: `animationWidth` wide (never wider
    /// than the canvas), the height by the canvas's aspect, both even (4:2:0 for WebP).
    package func animationSize(canvasWidth width: Int, height: Int) -> (width: Int, height: Int) {
        let wide = min(animationWidth, width) / 2 * 2
        let high = Int((Double(wide) * Double(height) / Double(width) / 2).rounded()) * 2
        return (max(2, wide), max(2, high))
    }
}
