import Compositor
import Foundation

/// Joins the folders of a render's shards (`render --frames A..B`) into one result: the frames in
/// one folder, and one `lifecycle.jsonl` and `summary.json` equal to a whole render's, wall-clock
/// times aside (`render-stories merge`).
///
/// A shard's trace is the whole render's between its frames, plus an edge the shard invents:
/// at its last moment it stops every player still alive, where the whole render plays on. The
/// merge drops each shard's events from its end on (the next shard records that moment itself),
/// and adds the pictures a crossing player showed in the shards before to its real `stop`.
public enum ShardMerge {
    /// One shard's folder, read.
    struct Shard {
        let folder: String
        let range: Range<Int>
        let events: [TraceEvent]
        let summary: [String: JSONValue]
    }

    /// Merges `folders` into `output` (which may be one of them). Frames are moved, not copied.
    @discardableResult
    public static func merge(_ folders: [String], into output: String) throws(RenderError) -> RenderSummary {
        guard !folders.isEmpty else { throw RenderError(.options, "merge needs at least one shard folder") }
        let shards = try folders.map(read).sorted { $0.range.lowerBound < $1.range.lowerBound }
        var expected = 0
        for shard in shards {
            guard shard.range.lowerBound == expected else {
                throw RenderError(.options, shard.range.lowerBound > expected
                    ? "frames \(expected)..<\(shard.range.lowerBound) are in no shard (next: \(shard.folder))"
                    : "\(shard.folder) overlaps the shard before it at frame \(shard.range.lowerBound)")
            }
            expected = shard.range.upperBound
        }
        let fps = number(shards[0].summary["timeline_fps"]) ?? 30
        let trace = LifecycleTrace(replaying: joinTraces(shards, fps: fps))
        try StoryRender.prepareOutputFolder(output)
        try moveFrames(shards, to: output)
        let summary = joinSummaries(shards, trace: trace, fps: fps)
        do {
            try AtomicFile.write(Array(trace.jsonLines.utf8), to: (output as NSString).appendingPathComponent("lifecycle.jsonl"))
            try AtomicFile.write(Array(summary.json.utf8), to: (output as NSString).appendingPathComponent("summary.json"))
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
            throw RenderError(.output, "\(folder) holds no readable summary.json: is it a shard's output folder?")
        }
        guard case .array(let bounds)? = summary["frame_range"], bounds.count == 2,
              let lower = number(bounds[0]).map(Int.init), let upper = number(bounds[1]).map(Int.init), lower < upper else {
            throw RenderError(.options, "\(folder) is not a shard: its summary.json has no frame_range (render it with --frames)")
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

    // MARK: - Joining

    static func joinTraces(_ shards: [Shard], fps: Double) -> [TraceEvent] {
        var joined: [TraceEvent] = []
        // Pictures shown by players whose shard stopped them at its edge; nil for players that
        // count none (a room's audio players), whose real `stop` has no `pictures` either.
        var carried: [Int: Int?] = [:]
        for (index, shard) in shards.enumerated() {
            let isLast = index == shards.count - 1
            let end = Double(shard.range.upperBound) / fps
            for var event in shard.events {
                if !isLast && event.t >= end - 1e-9 {
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

    private static func moveFrames(_ shards: [Shard], to output: String) throws(RenderError) {
        let target = URL(fileURLWithPath: output).standardizedFileURL.path
        for shard in shards where URL(fileURLWithPath: shard.folder).standardizedFileURL.path != target {
            for n in shard.range {
                let from = StoryRender.framePath(shard.folder, n), to = StoryRender.framePath(output, n)
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
        var stageSeconds: [PipelineStage: Double] = [:]
        for shard in shards {
            if case .array(let stories)? = shard.summary["stories"] {
                for case .object(let story) in stories {
                    if case .string(let id)? = story["id"], !storyIDs.contains(id) { storyIDs.append(id) }
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
        var summary = RenderSummary(frames: Int(sum("frames")), wallSeconds: sum("wall_seconds"), storyIDs: storyIDs,
                                    trace: trace, notices: notices, stageSeconds: stageSeconds,
                                    cores: Int(number(shards[0].summary["cores"]) ?? 1))
        summary.timelineFPS = fps
        summary.timelineFrames = shards.last!.range.upperBound
        summary.lateFrames = late
        summary.posterMisses = Int(sum("poster_misses"))
        return summary
    }

    /// Two counts of pictures added, nil when neither was counted.
    private static func sum(_ a: Int?, _ b: Int?) -> Int? {
        a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0)
    }
}
