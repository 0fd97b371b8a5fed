import Foundation
import Glibc
import XCTest

/// deploy/slurm/record.sbatch on a real (single-node) Slurm cluster: one task records one room
/// with `render-stories record`, to segments and an HLS playlist on the (here local, there
/// shared) storage, and stops cleanly whether it reaches its duration or Slurm sends it SIGTERM.
final class SlurmRecordTests: XCTestCase {
    private var running: SlurmCluster?
    private let script = CommandLineTests.packageRoot.path + "/deploy/slurm/record.sbatch"
    private let samples = CommandLineTests.packageRoot.path + "/samples"

    /// A cluster of its own. Missing Slurm or munge skips the test on a developer's machine and
    /// fails it under CI=true; a cluster that does not start fails it everywhere.
    private func cluster() throws -> SlurmCluster {
        guard SlurmCluster.isInstalled else {
            throw LiveServers.unavailable("slurm-wlm or munge is not installed (make test installs them: scripts/install-deps.sh --test)")
        }
        let cluster = try SlurmCluster()
        running = cluster
        return cluster
    }

    override func tearDown() {
        if let cluster = running {
            cluster.stop()
            XCTAssertEqual(cluster.jobProcesses(), [], "nothing the cluster started outlives it")
        }
        running = nil
        super.tearDown()
    }

    /// Submits the script with `arguments`; the job's id.
    private func submit(_ cluster: SlurmCluster, _ arguments: [String], log: String, sbatch: [String] = []) throws -> String {
        let submitted = try cluster.run("/usr/bin/sbatch", ["--parsable", "--output=" + log] + sbatch + [script] + arguments,
                                        environment: ["RENDER_STORIES": TestPrograms.renderStories])
        XCTAssertEqual(submitted.status, 0, submitted.output)
        let id = String(submitted.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";").first ?? "")
        guard !id.isEmpty, submitted.status == 0 else { throw SlurmClusterError("sbatch failed: \(submitted.output)") }
        return id
    }

    /// The job's state and exit code ("0:0": the script's status, then the signal that ended it)
    /// once it has ended. The deadline only keeps a hung job from hanging the test.
    private func finished(_ cluster: SlurmCluster, _ id: String, within seconds: Double = 300) throws -> (state: String, exitCode: String) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let line = try cluster.run("/usr/bin/scontrol", ["show", "job", "-o", id]).output
            let state = field("JobState", in: line), code = field("ExitCode", in: line)
            switch state {
            case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "": usleep(500_000)
            default: return (state, code)
            }
        }
        throw SlurmClusterError("job \(id) had not ended after \(Int(seconds)) s\n\(cluster.logs())")
    }

    private func field(_ name: String, in line: String) -> String {
        guard let range = line.range(of: name + "=") else { return "" }
        return String(line[range.upperBound...].prefix { !$0.isWhitespace })
    }

    /// The trace's events, in order.
    private func events(_ folder: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: folder + "/lifecycle.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The pictures ffprobe decodes from a file or playlist, each frame read (`-count_frames`),
    /// and the packets it holds: equal, and no error said, when the file is whole.
    private func decodedFrames(_ path: String) throws -> Int {
        let probe = try ExternalProgram.outcome("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-count_packets", "-select_streams", "v:0",
                                                                     "-show_entries", "stream=nb_read_frames,nb_read_packets", "-of", "csv=p=0", path])
        let said = String(decoding: probe.stderr, as: UTF8.self)
        XCTAssertEqual(probe.status, 0, path + ": " + said)
        XCTAssertEqual(said, "", path)
        let counts = String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: ",").compactMap { Int($0) }
        XCTAssertEqual(counts.count, 2, path + ": " + String(decoding: probe.stdout, as: UTF8.self))
        XCTAssertEqual(counts.first, counts.last, "\(path): every packet decodes to a picture")
        return counts.first ?? 0
    }

    /// What every clean stop leaves in OUT: segment files that each decode whole, named by their
    /// UTC start, each closed in the trace; an HLS playlist that ends (EXT-X-ENDLIST) and decodes
    /// whole; both outputs started; and the same pictures in both. The frames decoded.
    @discardableResult
    private func checkCleanRecording(_ out: String, log: String) throws -> Int {
        let trace = events(out)
        let named = trace.compactMap { $0["event"] as? String }
        for output in ["segments", "hls"] {
            XCTAssertTrue(trace.contains { $0["event"] as? String == "output_started" && $0["output"] as? String == output }, "\(output): \(named)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: out + "/segments").filter { $0.hasSuffix(".mp4") }.sorted()
        XCTAssertFalse(files.isEmpty, "no segment in \(out)/segments; the job's log:\n" + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
        let closed = trace.filter { $0["event"] as? String == "segment_closed" && $0["output"] as? String == "segments" }
        XCTAssertEqual(closed.compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } }.sorted(), files, "\(closed)")
        for event in closed { XCTAssertGreaterThan(event["bytes"] as? Int ?? 0, 0, "\(event)") }
        var frames = 0
        for file in files {
            XCTAssertNotNil(file.range(of: #"^[0-9]{8}T[0-9]{6}Z\.mp4$"#, options: .regularExpression), file)
            let pictures = try decodedFrames(out + "/segments/" + file)
            XCTAssertGreaterThan(pictures, 0, file)
            frames += pictures
        }
        let playlist = try String(contentsOfFile: out + "/hls/index.m3u8", encoding: .utf8)
        XCTAssertTrue(playlist.contains("#EXT-X-ENDLIST"), playlist)
        XCTAssertEqual(try decodedFrames(out + "/hls/index.m3u8"), frames, "the playlist holds the segments' pictures")
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json"))) as? [String: Any]
        let record = summary?["record"] as? [String: Any]
        XCTAssertEqual(record?["running"] as? Bool, false, "\(summary ?? [:])")
        XCTAssertEqual(record?["frames"] as? Int, frames, "\(record ?? [:])")
        let segments = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }.count
        print("recorded \(frames) frames: \(files.count) MP4 segments (\(files.joined(separator: " "))), \(segments) HLS segments; \(record?["late_frames"] ?? "?") late")
        return frames
    }

    /// One room for --duration 6 at 180x320, 30 fps: the job COMPLETED with exit code 0, its
    /// segments and playlist whole, 6 s of frames in them.
    func testOneRoomRecordsItsDurationAndCompletes() throws {
        let cluster = try cluster()
        let scratch = ScratchFolder()
        let out = scratch.file("recordings/panel"), log = scratch.file("record.log")
        let id = try submit(cluster, [samples + "/room.json", out, "--duration", "6", "--size", "180x320"], log: log)
        let (state, code) = try finished(cluster, id)
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(state, "COMPLETED", said + "\n" + cluster.logs())
        XCTAssertEqual(code, "0:0", said)
        XCTAssertTrue(said.contains("record.sbatch: room room: \(samples)/room.json into \(out)"), said)
        let frames = try checkCleanRecording(out, log: log)
        XCTAssertEqual(Double(frames), 180, accuracy: 2, "6 s at 30 fps")
    }

    /// `--rooms LIST` as an array job: task k records the k-th storyboard of the list (a room and
    /// a story viewer, one named relative to the list) into OUT/NAME, each COMPLETED with exit
    /// code 0 and whole.
    func testRoomsListRecordsEachRoomAsOneArrayTask() throws {
        let cluster = try cluster()
        let scratch = ScratchFolder()
        try FileManager.default.createSymbolicLink(atPath: scratch.file("samples"), withDestinationPath: samples)
        let list = scratch.file("rooms.txt")
        try "# a room and a story viewer\n\(samples)/room.json\n\nsamples/demo.json\n".write(toFile: list, atomically: true, encoding: .utf8)
        let out = scratch.file("recordings")
        let id = try submit(cluster, ["--rooms", list, out, "--duration", "4", "--size", "180x320"],
                            log: scratch.file("record-%a.log"), sbatch: ["--array=0-1"])
        for (task, name) in ["room", "demo"].enumerated() {
            let log = scratch.file("record-\(task).log")
            let (state, code) = try finished(cluster, "\(id)_\(task)")
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            XCTAssertEqual(state, "COMPLETED", name + ": " + said + "\n" + cluster.logs())
            XCTAssertEqual(code, "0:0", said)
            XCTAssertTrue(said.contains("record.sbatch: room \(name): ") && said.contains(" into \(out)/\(name) "), said)
            XCTAssertGreaterThan(try checkCleanRecording(out + "/" + name, log: log), 0, name)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).sorted(), ["demo", "room"])
    }

    /// A room recording with no end of its own (a storyboard of 10 minutes), stopped by
    /// `scancel --batch --signal=TERM` once a segment has closed: the recorder (the batch shell,
    /// by exec) stops cleanly, the job is COMPLETED with exit code 0, and every segment, the one
    /// open at the signal too, decodes whole.
    func testScancelSIGTERMStopsTheRecorderCleanly() throws {
        let cluster = try cluster()
        let scratch = ScratchFolder()
        let (id, out, log) = try submitEndlessRoom(cluster, in: scratch)
        try waitForAClosedSegment(cluster, id, out: out, log: log)
        usleep(700_000) // mid-way through the next segment
        let cancel = try cluster.run("/usr/bin/scancel", ["--batch", "--signal=TERM", id])
        XCTAssertEqual(cancel.status, 0, cancel.output)
        try checkStoppedCleanly(cluster, id, out: out, log: log)
    }

    /// The same room under a time limit of 2 minutes, with the warning moved from 60 s to 100 s
    /// before it (`--signal=B:TERM@100` on the command line, over the script's @60) so that the
    /// test takes 20-50 s (slurmctld looks at the limits every 30 s): Slurm's own SIGTERM stops
    /// the recorder cleanly before the limit, and the job is COMPLETED, not TIMEOUT.
    func testTimeLimitWarningStopsTheRecorderCleanly() throws {
        let cluster = try cluster()
        let scratch = ScratchFolder()
        let (id, out, log) = try submitEndlessRoom(cluster, in: scratch, sbatch: ["--time=2", "--signal=B:TERM@100"])
        try waitForAClosedSegment(cluster, id, out: out, log: log)
        try checkStoppedCleanly(cluster, id, out: out, log: log)
        let seconds = field("RunTime", in: try cluster.run("/usr/bin/scontrol", ["show", "job", "-o", id]).output)
        print("record.sbatch under --time=2 --signal=B:TERM@100 ran \(seconds)")
    }

    /// Submits a room of four participants (the samples' files) that never ends on its own, to
    /// 2 s segments and an EVENT playlist of 1 s segments.
    private func submitEndlessRoom(_ cluster: SlurmCluster, in scratch: ScratchFolder, sbatch: [String] = []) throws -> (id: String, out: String, log: String) {
        let out = scratch.file("recordings/long"), log = scratch.file("record.log")
        let participants = ["ana", "ben", "cy", "dee"].map {
            #"{"id": "\#($0)", "uri": "\#(samples)/room-\#($0).mp4", "avatar": "\#(samples)/avatar-\#($0).jpg"}"#
        }.joined(separator: ", ")
        let board = scratch.file("long.json")
        try #"{"canvas": {"width": 720, "height": 1280, "fps": 30}, "stories": [{"id": "panel", "room": {"participants": [\#(participants)]}, "duration": 600}]}"#
            .write(toFile: board, atomically: true, encoding: .utf8)
        let id = try submit(cluster, [board, out, "--size", "180x320", "--segments", out + "/segments", "--segment-time", "2",
                                      "--hls", out + "/hls", "--hls-segment", "1", "--hls-window", "0"], log: log, sbatch: sbatch)
        return (id, out, log)
    }

    private func waitForAClosedSegment(_ cluster: SlurmCluster, _ id: String, out: String, log: String) throws {
        let deadline = Date().addingTimeInterval(120)
        while !events(out).contains(where: { $0["event"] as? String == "segment_closed" && $0["output"] as? String == "segments" }) {
            let state = field("JobState", in: try cluster.run("/usr/bin/scontrol", ["show", "job", "-o", id]).output)
            guard ["PENDING", "RUNNING", "CONFIGURING", ""].contains(state), Date() < deadline else {
                throw SlurmClusterError("no segment closed (job \(state)); its log:\n" + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
            }
            usleep(200_000)
        }
    }

    private func checkStoppedCleanly(_ cluster: SlurmCluster, _ id: String, out: String, log: String) throws {
        let (state, code) = try finished(cluster, id)
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(state, "COMPLETED", said + "\n" + cluster.logs())
        XCTAssertEqual(code, "0:0", said)
        try checkCleanRecording(out, log: log)
        let files = try FileManager.default.contentsOfDirectory(atPath: out + "/segments").filter { $0.hasSuffix(".mp4") }
        XCTAssertGreaterThanOrEqual(files.count, 2, "the closed segment and the one open at the signal")
    }
}
