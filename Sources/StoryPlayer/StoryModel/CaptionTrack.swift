/// The cues of one captions file (WebVTT or SRT), in the file's order: what is said, and when,
/// on the media time of the item or story the file belongs to.
public struct CaptionTrack: Sendable, Equatable {
    public var cues: [CaptionCue]

    public init(cues: [CaptionCue]) {
        self.cues = cues
    }

    /// The most lines any cue has (at least 1): the height a caption box may need.
    public var mostLines: Int {
        cues.map { $0.text.split(separator: "\n", omittingEmptySubsequences: false).count }.max() ?? 1
    }
}

/// One cue: its text from `start` until just before `end` (seconds of media time).
public struct CaptionCue: Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// The text in runs of one style; line breaks are "\n" inside the runs.
    public var runs: [CaptionRun]

    public init(start: Double, end: Double, runs: [CaptionRun]) {
        self.start = start
        self.end = end
        self.runs = runs
    }

    /// The words without their styles.
    public var text: String { runs.map(\.text).joined() }
}

/// Text in one style. The files' other tags (WebVTT's classes, voices, ruby, timestamps; SRT's
/// `<font>`) are dropped: a caption keeps its words, in the one look the render gives captions.
public struct CaptionRun: Sendable, Equatable {
    public var text: String
    public var bold = false
    public var italic = false
    public var underline = false

    public init(text: String, bold: Bool = false, italic: Bool = false, underline: Bool = false) {
        self.text = text
        self.bold = bold
        self.italic = italic
        self.underline = underline
    }
}
