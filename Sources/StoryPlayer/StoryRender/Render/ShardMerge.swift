import Compositor
import Foundation
import StoryBase
import StoryModel
import StoryTrace

/// Joins the folders of a render's shards (`render --frames A..B`) into one result: the frames in
/// one folder, and one `lifecycle.jsonl` and `summary.json` equal to a whole render's, wall-clock
/// times aside (`render-stories merge`).
///
/// A shard's trace is the whole render's between its frames, plus an edge the shard invents:
/// at its last moment it stops every player still alive, where the whole render plays on. The
/// merge drops each shard's events from its end on (the next shard records that moment itself),
/// and adds the pictures a crossing player showed in the shards before to its real `stop`.
///
/// Each shard records the whole render's frames (`timeline_frames`), so a set that leaves some
/// out is refused, naming them. With `allowPartial`, shards that follow one another but do not
/// cover the whole render merge into one larger shard of their frames (its `frame_range`, and
/// its trace ends on the last shard's edge, as a shard's does), which can be merged again later.
public enum ShardMerge {
    /// One shard's folder, read.
    struct Shard {
        let folder: String
        /// Its frames within the whole render's (a range past the render's end is cut there).
        let range: Range<Int>
        let events: [TraceEvent]
        let summary: [String: JSONValue]
    }

    /// Merges `folders` into `output` (which may be one of them). Frames are moved, not copied.
    /// Unless `allowPartial`, the shards must cover every frame of the render.
    @discardableResult
    public static func merge(_ folders: [String], into output: String, allowPartial: Bool = false) throws(RenderError) -> RenderSummary {
        guard !folders.isEmpty else { throw RenderError(.options, "merge needs at least one shard folder") }
        let read = try folders.map(read)
        let (fps, total) = try render(of: read)
        let shards = read.compactMap { $0.within(total) }.sorted { $0.range.lowerBound < $1.range.lowerBound }
        let covered = try coverage(of: shards, total: total, allowPartial: allowPartial)
        try checkPictureSizes(shards)
        try checkSameDrawing(shards)
        let trace = LifecycleTrace(replaying: joinTraces(shards, fps: fps))
        // Read before the output folder (perhaps a shard's own) is prepared, which retires them.
        let records = joinFrameRecords(shards)
        try StoryRenderer.prepareOutputFolder(output)
        try moveFrames(shards, to: output)
        // A whole render merged into a used folder replaces what was there, as a whole render
        // into it does: an audit's merge of 30 frames left an earlier render's 100-144 beside them.
        if covered == 0..<total { StoryRenderer.removeFrames(in: output, from: total) }
        var summary = joinSummaries(shards, trace: trace, fps: fps)
        // A partial merge is a shard itself, merged with the rest later: it says what it was
        // drawn from as they do.
        summary.renderOf = renderOf(of: shards.first)
        summary.timelineFrames = total
        summary.frameRange = covered == 0..<total ? nil : covered
        summary.noteStoriesWithoutAPicture(trace: trace)
        do {
            try AtomicFile.write(Array(trace.jsonLines.utf8), to: (output as NSString).appendingPathComponent("lifecycle.jsonl"))
            try AtomicFile.write(Array(summary.json.utf8), to: (output as NSString).appendingPathComponent("summary.json"))
            if let records {
                try AtomicFile.write(Array(FrameRecord.lines(records).utf8),
                                     to: (output as NSString).appendingPathComponent(FrameRecord.fileName))
            }
        } catch {
            throw RenderError(.output, "cannot write the merged trace or summary in \(output)", cause: error)
        }
        return summary
    }

    // MARK: - Reading

    private static func read(_ folder: String) throws(RenderError) -> Shard {
        let summaryPath = (folder as NSString).appendingPathComponent("summary.json")
        let tracePath = (folder as NSString).appendingPathComponent("lifecycle.jsonl")
        guard let summaryData = FileManager.default.contents(atPath: summaryPath),
              case .object(let summary)? = try? JSONValue.parse(summaryData) else {
            // Not a shard (a folder that is not there, or holds no render): the set is wrong,
            // not the output, so it exits 2 as the other folders that are not shards do.
            throw RenderError(.options, "\(folder) holds no readable summary.json: is it a shard's output folder?")
        }
        guard case .array(let bounds)? = summary["frame_range"], bounds.count == 2,
              let lower = whole(bounds[0]), let upper = whole(bounds[1]), lower < upper else {
            throw RenderError(.options, "\(folder) is not a shard: its summary.json has no frame_range (render it with --frames)")
        }
        if case .bool(true)? = summary["interrupted"] {
            throw RenderError(.options, "\(folder) was interrupted before the end of its frames \(lower)..<\(upper): render it again")
        }
        guard let text = try? String(contentsOfFile: tracePath, encoding: .utf8) else {
            throw RenderError(.output, "\(folder) holds no readable lifecycle.jsonl")
        }
        var events: [TraceEvent] = []
        for (index, line) in text.split(separator: "\n").enumerated() {
            do {
                events.append(try TraceEvent(jsonLine: line))
            } catch {
                throw RenderError(.options, "\(tracePath) line \(index + 1): \(error.message)")
            }
        }
        return Shard(folder: folder, range: lower..<upper, events: events, summary: summary)
    }

    private static func number(_ value: JSONValue?) -> Double? {
        if case .number(let number)? = value, number.isFinite { return number }
        return nil
    }

    /// A frame number or count from a summary: a whole number an `Int` holds, or nil. A summary
    /// is a file anyone may have edited; `Int(1e20)` would trap.
    private static func whole(_ value: JSONValue?) -> Int? {
        number(value).flatMap { abs($0) < 1e15 ? Int(exactly: $0.rounded()) : nil }
    }

    // MARK: - Checking the set

    /// The frame rate and frame count of the render the shards come from: every shard must
    /// name the same.
    private static func render(of shards: [Shard]) throws(RenderError) -> (fps: Double, frames: Int) {
        var first: (fps: Double, frames: Int, folder: String)?
        for shard in shards {
            guard let frames = whole(shard.summary["timeline_frames"]), frames >= 0 else {
                throw RenderError(.options, "\(shard.folder) does not say how many frames the whole render has "
                                  + "(no timeline_frames in its summary.json): render it again with this render-stories")
            }
            let fps = number(shard.summary["timeline_fps"]) ?? 30
            if let first, first.fps != fps || first.frames != frames {
                throw RenderError(.options, "\(shard.folder) is not a shard of the render of \(first.folder): "
                                  + "\(frames) frames at \(JSONText.number(fps)) fps, not \(first.frames) at \(JSONText.number(first.fps))")
            }
            first = first ?? (fps, frames, shard.folder)
        }
        return (first!.fps, first!.frames)
    }

    /// Every shard's frames are of one size: a shard rendered with another `--size` has the
    /// same frame count and rate, and joined the others with exit 0 (an audit's 360x640 and
    /// 180x320 frames in one folder). Read from each shard's first frame (its PNG header).
    private static func checkPictureSizes(_ shards: [Shard]) throws(RenderError) {
        var first: (width: Int, height: Int, folder: String)?
        for shard in shards {
            guard let size = pngSize(StoryRenderer.framePath(shard.folder, shard.range.lowerBound)) else { continue }
            if let first, (first.width, first.height) != size {
                throw RenderError(.options, "\(shard.folder) has \(size.0)x\(size.1) frames, \(first.folder) \(first.width)x\(first.height): "
                                  + "not shards of one render (render them with the same --size)")
            }
            first = first ?? (size.0, size.1, shard.folder)
        }
    }

    /// Every shard was drawn from one storyboard text with the same drawing options (its
    /// summary's `render_of`): shards of an edited storyboard, or one rendered with
    /// `--no-overlay`, have the same frame count and size and joined the others with exit 0.
    /// A set of shards from before `render_of` was written is not compared; one that mixes
    /// them with newer shards is refused, as their drawing cannot be told apart.
    private static func checkSameDrawing(_ shards: [Shard]) throws(RenderError) {
        let unsaid = shards.filter { if case .object? = $0.summary["render_of"] { false } else { true } }
        if let old = unsaid.first, unsaid.count < shards.count,
           let new = shards.first(where: { if case .object? = $0.summary["render_of"] { true } else { false } }) {
            throw RenderError(.options, "\(old.folder) does not say what it was drawn from (no render_of: an older render-stories) "
                              + "and \(new.folder) does: render every shard with the same render-stories")
        }
        var first: (drawing: [String: JSONValue], folder: String)?
        for shard in shards {
            guard case .object(let drawing)? = shard.summary["render_of"] else { continue }
            if let first {
                for key in Set(first.drawing.keys).union(drawing.keys).sorted() where first.drawing[key] != drawing[key] {
                    func text(_ value: JSONValue?) -> String {
                        if case .string(let string)? = value { return string }
                        return "nothing"
                    }
                    let why = key == "storyboard"
                        ? "another storyboard text (digest \(text(drawing[key])) against \(text(first.drawing[key])))"
                        : "\(key) \(text(drawing[key])) against \(text(first.drawing[key]))"
                    throw RenderError(.options, "\(shard.folder) is not a shard of the render of \(first.folder): it was drawn from \(why); "
                                      + "render every shard from the same storyboard with the same options")
                }
            }
            first = first ?? (drawing, shard.folder)
        }
    }

    /// A shard's `render_of` as a summary writes it, in `StoryRenderer.renderOf`'s order (then
    /// any other keys by name); empty when it has none.
    private static func renderOf(of shard: Shard?) -> [(key: String, value: String)] {
        guard case .object(let drawing)? = shard?.summary["render_of"] else { return [] }
        let order = ["storyboard", "canvas", "background", "overlay", "alpha", "clock", "guides"]
        let keys = order.filter { drawing[$0] != nil } + drawing.keys.filter { !order.contains($0) }.sorted()
        return keys.compactMap { key in
            if case .string(let value)? = drawing[key] { (key, value) } else { nil }
        }
    }

    /// A PNG's width and height from its header (`IHDR`, the first chunk); nil when it is not one.
    static func pngSize(_ path: String) -> (Int, Int)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 24) else { return nil }
        return pngSize(bytes: Array(head))
    }

    /// The width and height in a PNG's header (its first 24 bytes).
    static func pngSize(bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              bytes[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        return (width, height)
    }

    /// The frames the shards cover together. Gaps and overlaps are refused; so are frames of
    /// the render that no shard holds, unless `allowPartial`, with a message naming them all.
    private static func coverage(of shards: [Shard], total: Int, allowPartial: Bool) throws(RenderError) -> Range<Int> {
        guard let first = shards.first, let last = shards.last else {
            throw RenderError(.options, "no shard holds any of the render's \(total) frames")
        }
        var missing: [Range<Int>] = first.range.lowerBound > 0 ? [0..<first.range.lowerBound] : []
        for (shard, next) in zip(shards, shards.dropFirst()) {
            if next.range.lowerBound < shard.range.upperBound {
                throw RenderError(.options, "\(next.folder) overlaps \(shard.folder) at frame \(next.range.lowerBound)")
            }
            if next.range.lowerBound > shard.range.upperBound { missing.append(shard.range.upperBound..<next.range.lowerBound) }
        }
        if last.range.upperBound < total { missing.append(last.range.upperBound..<total) }
        let covered = first.range.lowerBound..<last.range.upperBound
        let inside = missing.filter { $0.lowerBound > covered.lowerBound && $0.upperBound < covered.upperBound }
        guard missing.isEmpty || (allowPartial && inside.isEmpty) else {
            let list = missing.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ")
            let partial = inside.isEmpty ? "; pass --allow-partial to merge frames \(covered.lowerBound)..<\(covered.upperBound) alone, as one shard" : ""
            throw RenderError(.options, "frames \(list) of the render's \(total) are in no shard\(partial)")
        }
        return covered
    }

    // MARK: - Joining

    static func joinTraces(_ shards: [Shard], fps: Double) -> [TraceEvent] {
        var joined: [TraceEvent] = []
        // Pictures shown by players whose shard stopped them at its edge; nil for players that
        // count none (a room's audio players), whose real `stop` has no `pictures` either.
        var carried: [Int: Int?] = [:]
        for (index, shard) in shards.enumerated() {
            let isLast = index == shards.count - 1
            for var event in shard.events {
                if !isLast && isEdge(event, of: shard.range, fps: fps) {
                    // The shard's invented edge: what it stopped there plays on in the next one.
                    if event.event == .stop, let player = event.player {
                        carried[player] = Self.sum(carried[player] ?? nil, event.pictures)
                    }
                    continue
                }
                if event.event == .stop, let player = event.player, let before = carried.removeValue(forKey: player) {
                    event.pictures = Self.sum(event.pictures, before)
                }
                joined.append(event)
            }
        }
        return joined
    }

    /// Whether `event`, from the shard of frames `range`, is of the edge it invents at its end
    /// (the next shard records that moment itself). By frame, not by time: a trace's times are
    /// rounded to the millisecond, so the time of a cut at most frame rates is written a little
    /// before or after it. Never a drag or pull let go: a shard has none from past its last
    /// frame, as the step to the next shard's first frame records them, and that shard keeps
    /// them (`LifecycleTrace.keepEvents(from:releasesFrom:)`). Rounded to a frame, a release
    /// half a frame or more before the cut was taken for the edge: an audit's cut at frame 221
    /// lost the demo's flick at 7.35 s.
    static func isEdge(_ event: TraceEvent, of range: Range<Int>, fps: Double) -> Bool {
        event.event != .gesture && frame(of: event, fps: fps) >= range.upperBound
    }

    /// The frame whose moment an event is nearest: a shard's events before its edge come at
    /// its frames' moments or before, so within a frame of rounding they are never taken for
    /// its edge.
    static func frame(of event: TraceEvent, fps: Double) -> Int {
        // Bounded: a trace line's time may be any finite number (a file anyone may have edited).
        Int(min(max((event.t * fps).rounded(), -1e15), 1e15))
    }

    /// The shards' `frames.jsonl` records within their ranges, or nil when a shard has none
    /// (an older render): a record of some frames only would pair some frames by the trace.
    static func joinFrameRecords(_ shards: [Shard]) -> [FrameRecord]? {
        var joined: [FrameRecord] = []
        for shard in shards {
            guard let records = FrameRecord.read(inFolder: shard.folder) else { return nil }
            joined += records.values.filter { shard.range.contains($0.frame) }
        }
        return joined
    }

        private static func moveFrames(_ shards: [Shard], to output: String) throws(RenderError) {
        let target = URL(fileURLWithPath: output).standardizedFileURL.path
        for shard in shards where URL(fileURLWithPath: shard.folder).standardizedFileURL.path != target {
            for n in shard.range {
                let from = StoryRenderer.framePath(shard.folder, n), to = StoryRenderer.framePath(output, n)
                guard FileManager.default.fileExists(atPath: from) else { continue }
                if rename(from, to) != 0 {
                    do {
                        try? FileManager.default.removeItem(atPath: to)
                        try FileManager.default.copyItem(atPath: from, toPath: to)
                    } catch {
                        throw RenderError(.output, "cannot move \(from) to \(output)", cause: error)
                    }
                }
            }
        }
    }

    private static func joinSummaries(_ shards: [Shard], trace: LifecycleTrace, fps: Double) -> RenderSummary {
        func sum(_ key: String) -> Double { shards.reduce(0) { $0 + (number($1.summary[key]) ?? 0) } }
        var storyIDs: [String] = [], notices: [String] = [], late: [Int] = []
        // A story from a feed page is named without a JSON path; each shard's summary says which.
        var feedStories = Set<String>()
        var stageSeconds: [PipelineStage: Double] = [:]
        for shard in shards {
            if case .array(let stories)? = shard.summary["stories"] {
                for case .object(let story) in stories {
                    guard case .string(let id)? = story["id"] else { continue }
                    if !storyIDs.contains(id) { storyIDs.append(id) }
                    if case .array(let errors)? = story["errors"],
                       errors.contains(where: { if case .string(let text) = $0 { text.hasPrefix("items[") } else { false } }) {
                        feedStories.insert(id)
                    }
                }
            }
            if case .array(let lines)? = shard.summary["notices"] {
                for case .string(let line) in lines where !notices.contains(line) { notices.append(line) }
            }
            if case .array(let frames)? = shard.summary["late_frames"] { late += frames.compactMap { number($0).map(Int.init) } }
            let frames = number(shard.summary["frames"]) ?? 0
            if case .object(let stages)? = shard.summary["stages_ms"] {
                for stage in PipelineStage.allCases {
                    stageSeconds[stage, default: 0] += (number(stages[stage.rawValue]) ?? 0) * frames / 1000
                }
            }
        }
        var summary = RenderSummary(frames: Int(sum("frames")), wallSeconds: sum("wall_seconds"), storyIDs: storyIDs, feedStories: feedStories,
                                    trace: trace, notices: notices, stageSeconds: stageSeconds,
                                    cores: Int(number(shards[0].summary["cores"]) ?? 1))
        summary.timelineFPS = fps
        summary.lateFrames = late
        summary.posterMisses = Int(sum("poster_misses"))
        return summary
    }

    /// Two counts of pictures added, nil when neither was counted.
    private static func sum(_ a: Int?, _ b: Int?) -> Int? {
        a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0)
    }
}

extension ShardMerge.Shard {
    /// The shard with its range cut to the render's frames, or nil when it holds none of them (a
    /// `--frames` range past the end of an open-ended render).
    func within(_ frames: Int) -> Self? {
        let range = range.clamped(to: 0..<frames)
        return range.isEmpty ? nil : Self(folder: folder, range: range, events: events, summary: summary)
    }
}
