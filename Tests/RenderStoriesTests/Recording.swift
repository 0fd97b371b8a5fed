import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A `render-stories record` running as a job runner starts it: a child process the test
/// watches through what it writes as it goes (lifecycle.jsonl, summary.json, its outputs),
/// signals, and waits for. Killed (by its pid) if the test leaves it running.
final class Recording {
    let process = Process()
    /// The recording's folder (`-o`): lifecycle.jsonl and summary.json.
    let out: String
    private let errorLog: String

    /// Starts `record BOARD -o OUT ARGUMENTS` in `folder`.
    init(_ board: String, out: String, _ arguments: [String], folder: ScratchFolder) throws {
        self.out = out
        errorLog = folder.file("record-\(UUID().uuidString.prefix(8)).stderr")
        FileManager.default.createFile(atPath: errorLog, contents: nil)
        process.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        process.arguments = ["record", board, "-o", out, "--quiet"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let log = FileHandle(forWritingAtPath: errorLog)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    /// What the recorder printed (stdout and stderr), for failure messages.
    var said: String { (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? "" }

    /// The whole lines of lifecycle.jsonl so far, each parsed (a line being written is left out).
    var events: [[String: Any]] {
        guard let text = try? String(contentsOfFile: out + "/lifecycle.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    func events(_ name: String, output: String? = nil) -> [[String: Any]] {
        events.filter { $0["event"] as? String == name && (output == nil || $0["output"] as? String == output) }
    }

    /// Waits up to `seconds` for `count` events named `name` (of `output`, when given); whether they came.
    @discardableResult
    func waitFor(_ name: String, output: String? = nil, count: Int = 1, seconds: Double = 30) -> Bool {
        LiveServers.waitUntil(seconds) { events(name, output: output).count >= count || !isRunning }
            && events(name, output: output).count >= count
    }

    /// summary.json as it is now, or nil before it is written.
    var summary: [String: Any]? {
        guard let data = FileManager.default.contents(atPath: out + "/summary.json") else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The summary's `record` object.
    var record: [String: Any]? { summary?["record"] as? [String: Any] }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Waits up to `seconds` for the recorder to end; its exit status, or nil if it still runs.
    func exitStatus(within seconds: Double) -> Int32? {
        guard LiveServers.waitUntil(seconds, { !process.isRunning }) else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Stops a recorder the test left running (a failed assertion), by its pid.
    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
        if process.processIdentifier != 0 { process.waitUntilExit() }
    }
}

/// The storyboards the recording tests record: small canvases at 30 fps, so a recording's
/// encode stays cheap beside the servers on a 2-core machine.
enum RecordBoards {
    /// A room of two recorded participants (the samples' ana and ben, 10 s each), lasting 10
    /// minutes: open-ended for a recording stopped by `--duration` or a signal.
    static func recordedRoom(in folder: ScratchFolder, size: (Int, Int) = (180, 320)) throws -> String {
        let samples = Fixture.packageRoot.appendingPathComponent("samples").path
        return try write("""
        {"canvas": {"width": \(size.0), "height": \(size.1), "fps": 30},
         "stories": [{"id": "panel", "room": {"participants": [
            {"id": "ana", "uri": "\(samples)/room-ana.mp4", "avatar": "\(samples)/avatar-ana.jpg"},
            {"id": "ben", "uri": "\(samples)/room-ben.mp4", "avatar": "\(samples)/avatar-ben.jpg"}]},
          "duration": 600}]}
        """, named: "room.json", in: folder)
    }

    static func write(_ text: String, named name: String, in folder: ScratchFolder) throws -> String {
        let path = folder.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// An HLS output's folder as a player finds it.
struct HLSFolder {
    let path: String
    /// A playlist read once (so its lines, segments and times are of one version of it).
    private var text: String?

    init(path: String) { self.path = path }
    init(text: String) {
        path = ""
        self.text = text
    }

    var playlist: String { text ?? (try? String(contentsOfFile: path + "/index.m3u8", encoding: .utf8)) ?? "" }
    var lines: [String] { playlist.split(separator: "\n").map(String.init) }
    /// The segments the playlist names, in order.
    var listed: [String] { Self.listed(in: playlist) }
    static func listed(in text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }
    /// Each listed segment's EXTINF duration.
    var durations: [Double] {
        lines.filter { $0.hasPrefix("#EXTINF:") }.compactMap { Double($0.dropFirst(8).split(separator: ",").first ?? "") }
    }
    /// The EXT-X-PROGRAM-DATE-TIME of each segment, in seconds since 1970 (FFmpeg writes
    /// `2026-12-07T00:08:21.841+0000`).
    var programDateTimes: [Double] {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return lines.filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }.compactMap { line in
            parser.date(from: String(line.dropFirst(25)))?.timeIntervalSince1970
        }
    }
    /// The media segment files on disk.
    var segmentFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".m4s") }.sorted()
    }
    /// The listed segments after the init segment, one file for ffprobe.
    func joined(into target: String) throws -> String {
        try MediaReadBack.joined(init: path + "/init.mp4", segments: listed.map { path + "/" + $0 }, into: target)
    }
}

/// The `--segments` folder's MP4 files, in time order.
func segmentFiles(_ folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".mp4") }.sorted()
}

/// A segment file's UTC start from its name (`YYYYMMDDTHHMMSSZ.mp4`), seconds since 1970.
func segmentStart(_ name: String) -> Double? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    return formatter.date(from: String(name.prefix(16)))?.timeIntervalSince1970
}
