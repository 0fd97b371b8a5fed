import Foundation
import StoryBase
import StoryEncode
import StoryTrace

/// A recording's `lifecycle.jsonl` and `summary.json`, as it goes: the trace appended line by
/// line at least every second (a recording of hours is watched while it runs, and a crash
/// keeps what was said), the summary rewritten whole every ten seconds with the running
/// figures, and both at the end. The outputs' events (`OutputLog`) join the trace here, on the
/// render's thread, at the time of the frame they were seen at.
struct RecordTrace: FrameSink {
    let folder: String
    let log: OutputLog
    let trace: LifecycleTrace
    /// The running summary's JSON, for the frames so far (`StoryRenderer.runningSummary`).
    let summary: (_ frames: Int) -> String
    private var file: FileHandle?
    private var appended = 0
    private var lastAppend = ContinuousClock.now
    /// The first summary is written at the first frame, so a recording's folder says it is
    /// running from the start.
    private var lastSummary = ContinuousClock.now - RecordTrace.summaryEvery

    static let appendEvery = Duration.seconds(1)
    static let summaryEvery = Duration.seconds(10)

    init(folder: String, log: OutputLog, trace: LifecycleTrace, summary: @escaping (Int) -> String) {
        self.folder = folder
        self.log = log
        self.trace = trace
        self.summary = summary
    }

    /// The trace file, made empty on the first frame: after the render has set an earlier
    /// render's files aside (`PreviousRender`), so this one's is not among them.
    private mutating func openFile() throws(RenderError) -> FileHandle {
        if let file { return file }
        let path = (folder as NSString).appendingPathComponent("lifecycle.jsonl")
        do {
            try AtomicFile.write([], to: path)
        } catch {
            throw RenderError(.output, "cannot write the trace in \(folder)", cause: error)
        }
        guard let opened = FileHandle(forWritingAtPath: path) else {
            throw RenderError(.output, "cannot write the trace in \(folder)", cause: String(cString: strerror(errno)))
        }
        file = opened
        return opened
    }

    mutating func take(_ frame: DrawnFrame) throws(RenderError) {
        RecordTrace.takeEvents(from: log, into: trace, at: frame.time)
        if file == nil { try appendNewLines() }
        let now = ContinuousClock.now
        if now - lastAppend >= Self.appendEvery {
            lastAppend = now
            try appendNewLines()
        }
        if now - lastSummary >= Self.summaryEvery {
            lastSummary = now
            try writeSummary(summary(frame.index + 1))
        }
    }

    mutating func abandon() {
        try? appendNewLines()
        try? file?.close()
    }

    func write(_ ending: RenderEnding) throws(RenderError) {
        // The outputs finished in `endFrames`: their last events (the last segment) come now.
        RecordTrace.takeEvents(from: log, into: trace, at: ending.summary.record.map { max(0, $0.seconds - 1 / ending.fps) } ?? 0)
        var copy = self
        try copy.appendNewLines()
        try? copy.file?.close()
        try writeSummary(ending.summary.json)
    }

    /// The trace's events not yet in the file, appended.
    private mutating func appendNewLines() throws(RenderError) {
        let file = try openFile()
        let events = trace.events
        guard appended < events.count else { return }
        let lines = events[appended...].map { $0.jsonLine + "\n" }.joined()
        do {
            try file.write(contentsOf: Data(lines.utf8))
        } catch {
            throw RenderError(.output, "cannot append to the trace in \(folder)", cause: "\(error)")
        }
        appended = events.count
    }

    private func writeSummary(_ json: String) throws(RenderError) {
        do {
            try AtomicFile.write(Array(json.utf8), to: (folder as NSString).appendingPathComponent("summary.json"))
        } catch {
            throw RenderError(.output, "cannot write the summary in \(folder)", cause: error)
        }
    }

    /// The outputs' events since the last call, as trace events at timeline time `t`.
    static func takeEvents(from log: OutputLog, into trace: LifecycleTrace, at t: Double) {
        for event in log.takeEvents() {
            let kind: TraceEvent.Kind
            var error: String?
            switch event.kind {
            case .started: kind = .outputStarted
            case .lost(let message): kind = .outputLost; error = message
            case .back: kind = .outputBack
            case .segmentClosed: kind = .segmentClosed
            case .dropped: kind = .pushDropped
            }
            trace.record(kind, t: t, story: "", error: error) { line in
                line.output = event.output
                if case .segmentClosed(let file, let seconds, let bytes) = event.kind {
                    line.file = file
                    line.duration = seconds
                    line.bytes = Int(bytes)
                }
                if case .dropped(let milliseconds) = event.kind { line.ms = milliseconds }
            }
        }
    }
}
