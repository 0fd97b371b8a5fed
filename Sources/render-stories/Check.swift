import ArgumentParser
import Compositor
import Foundation
import StoryPlayer

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a lifecycle trace: ids never reused, one stop per play, a bounded number alive.",
        discussion: """
        Prints one line per violation, in the trace's line order, and exits 1 if there is any; \
        exits 0 when every rule holds. A file that holds no lifecycle event (a summary.json, a \
        picture) is a usage error (exit 2). A shard's trace (render --frames) is checked with \
        --shard; its summary.json's frame_range says it is one.
        """
    )

    @Argument(help: ArgumentHelp("A lifecycle.jsonl written by render, or a render's output folder (its lifecycle.jsonl).", valueName: "trace"))
    var trace: String

    @Option(parsing: .unconditional, help: "The most players that may be alive at once.")
    var maxAlive = 2

    @Option(parsing: .unconditional, help: "The most audio-only players (a live room's participants, \"media\": \"audio\") that may be alive at once. Default: no bound.")
    var maxAudio: Int?

    @Flag(help: "The trace covers only a frame range: players may be alive at its start and end.")
    var shard = false

    func validate() throws {
        guard maxAlive >= 1 else { throw ValidationError("--max-alive must be at least 1") }
        if let maxAudio, maxAudio < 0 { throw ValidationError("--max-audio must be 0 or more") }
    }

    func run() throws {
        let path = Check.tracePath(trace)
        let bytes: [UInt8]
        do {
            bytes = try AtomicFile.read(path)
        } catch {
            printError("error: \(path == trace ? "" : "\(trace) is a folder without a render's trace: ")\(error)")
            throw ExitCode(2)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains(where: { !$0.isWhitespace }) else {
            print("\(path): the trace is empty: no render wrote events into it")
            throw ExitCode(1)
        }
        // Something else given for the trace (a summary.json, a frame) would be a violation a
        // line: it is the wrong file, said once.
        guard !LifecycleTimeline.events(fromJSONLines: text).isEmpty else {
            printError("error: \(path) is not a lifecycle trace: check reads the lifecycle.jsonl a render writes "
                       + "(one JSON event a line), or a render's output folder" + Check.traceBeside(path))
            throw ExitCode(2)
        }
        let violations = TraceCheck.check(text, maxAlive: maxAlive, maxAudio: maxAudio,
                                          shard: shard)
        for violation in violations { print(violation) }
        if violations.isEmpty {
            print("ok: lifecycle holds (at most \(maxAlive) alive\(maxAudio.map { ", at most \($0) audio" } ?? ""))")
        } else {
            if !shard, let range = Check.shardRange(besides: path) {
                printError("note: this is a shard's trace (frames \(range.lowerBound)..<\(range.upperBound), its summary.json's "
                           + "frame_range): players alive at its edges are the shards' around it; check it with --shard")
            }
            throw ExitCode(1)
        }
    }
}

extension Check {
    /// The trace to read: `DIR/lifecycle.jsonl` for a render's folder, else the path as given.
    static func tracePath(_ given: String) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: given, isDirectory: &isFolder), isFolder.boolValue else { return given }
        return (given as NSString).appendingPathComponent("lifecycle.jsonl")
    }

    /// A hint when the file given sits beside a render's trace (a summary.json given for it).
    static func traceBeside(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let beside = (folder.isEmpty ? "lifecycle.jsonl" : (folder as NSString).appendingPathComponent("lifecycle.jsonl"))
        guard (path as NSString).lastPathComponent != "lifecycle.jsonl", FileManager.default.fileExists(atPath: beside) else { return "" }
        return "; the trace beside it is \(beside)"
    }

    /// The `frame_range` of the `summary.json` beside the trace: the trace is a shard's.
    static func shardRange(besides path: String) -> Range<Int>? {
        let summary = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("summary.json")
        guard let data = FileManager.default.contents(atPath: summary),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let bounds = object["frame_range"] as? [Int], bounds.count == 2, bounds[0] < bounds[1] else { return nil }
        return bounds[0]..<bounds[1]
    }
}
