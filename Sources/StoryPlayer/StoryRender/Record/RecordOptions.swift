import StoryEncode

/// What `record` makes besides the trace and summary: its outputs that never end, and when it
/// stops on its own. The render runs on the realtime clock, open-ended.
public struct RecordOptions: Sendable {
    /// `--hls DIR`: fMP4 segments of `segmentSeconds`, a window of `window` (0: an EVENT
    /// playlist that becomes VOD at a clean stop).
    public struct HLS: Sendable {
        public var folder: String
        public var segmentSeconds = RecordOptions.defaultHLSSegment
        public var window = RecordOptions.defaultHLSWindow
        public init(folder: String) { self.folder = folder }
    }

    /// `--segments DIR --segment-time S`: MP4 files cut at UTC multiples of S.
    public struct Segments: Sendable {
        public var folder: String
        public var segmentSeconds = RecordOptions.defaultSegmentTime
        public init(folder: String) { self.folder = folder }
    }

    public var hls: HLS?
    public var segments: Segments?
    /// `--push URL`, each: rtmp://, rtmps://, srt://.
    public var push: [String] = []
    /// `--until-empty S`: stop once a room has had no participant for S seconds.
    public var untilEmpty: Double?
    /// `--frames-every N`: one PNG frame every N frames; nil: none.
    public var framesEvery: Int?
    /// The one encode's settings (H.264, x264's `zerolatency` tuning).
    public var encoding: ClipOptions

    public static let defaultHLSSegment = 2.0
    public static let defaultHLSWindow = 6
    public static let defaultSegmentTime = 300.0
    /// The URL schemes `--push` takes.
    public static let pushSchemes = ["rtmp", "rtmps", "srt"]

    public init() {
        encoding = ClipOptions(path: "")
        encoding.tune = "zerolatency"
    }

    /// Whether it has an output at all: a recording with none would only spend the CPU.
    public var hasOutputs: Bool { hls != nil || segments != nil || !push.isEmpty }

    /// The outputs, each reporting to `log`.
    func outputs(log: OutputLog) -> [any LiveOutput] {
        var outputs: [any LiveOutput] = []
        if let hls { outputs.append(HLSOutput(folder: hls.folder, segmentSeconds: hls.segmentSeconds, window: hls.window, log: log)) }
        if let segments { outputs.append(SegmentFiles(folder: segments.folder, segmentSeconds: segments.segmentSeconds, log: log)) }
        outputs += push.map { PushOutput(url: $0, log: log) }
        return outputs
    }
}
