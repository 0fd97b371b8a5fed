import Foundation
import XCTest

extension RecordOutputTests {
    /// `--segments DIR --segment-time 2`: MP4 files named by the UTC second of their first frame,
    /// each cut at a multiple of 2 s of UTC (the first keyframe at or after it: within the 1 s
    /// GOP), each a fragmented MP4 (`moof`) that ffprobe decodes whole, each traced by a
    /// `segment_closed` event with its file, duration and bytes; together they hold every frame.
    func testSegmentsAreFragmentedMP4sNamedByTheirUTCStartAndCutAtTheSegmentTime() throws {
        let segments = folder.file("segments")
        let recording = try record(["--duration", "7.5", "--segments", segments, "--segment-time", "2"])
        let names = segmentFiles(segments)
        XCTAssertGreaterThanOrEqual(names.count, 4, "7.5 s cut every 2 s of UTC: \(names)")
        let starts = names.compactMap(segmentStart)
        XCTAssertEqual(starts.count, names.count, "every name is YYYYMMDDTHHMMSSZ.mp4: \(names)")
        for start in starts.dropFirst() {
            XCTAssertEqual(start.truncatingRemainder(dividingBy: 2), 0, "cut at a multiple of 2 s of UTC: \(names)")
        }
        let closed = recording.events("segment_closed", output: "segments")
        XCTAssertEqual(closed.compactMap { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } }, names,
                       "a segment_closed event for each file, in order")
        var total = 0
        for (n, name) in names.enumerated() {
            let path = segments + "/" + name
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertNotNil(bytes.range(of: Data("moof".utf8)), "\(name) is a fragmented MP4")
            let packets = try MediaReadBack.packets(path)
            XCTAssertEqual(try MediaReadBack.decodedFrames(path), packets.count, "ffprobe decodes every frame of \(name)")
            XCTAssertEqual(try MediaReadBack.decodingErrors(path), "", name)
            XCTAssertEqual(TimestampContinuity.faults(packets, fps: 30), [], name)
            XCTAssertTrue(packets.first?.keyframe == true, "\(name) starts on a keyframe")
            if n > 0, n < names.count - 1 {
                XCTAssertEqual(Double(packets.count), 60, accuracy: 30, "\(name): 2 s, give or take the GOP where it is cut")
            }
            if n < closed.count {
                XCTAssertEqual(closed[n]["bytes"] as? Int, bytes.count, "\(name): the event's bytes are the file's")
                let duration = try XCTUnwrap(closed[n]["duration"] as? Double, "\(closed[n])")
                XCTAssertEqual(duration, Double(packets.count) / 30, accuracy: 0.05, "\(name): the event's duration")
            }
            total += packets.count
        }
        XCTAssertEqual(total, try framesWritten(recording), "the segments hold every frame written, once")
    }

    // MARK: - Pushes

    /// `--push rtmp://` to nginx-rtmp: a viewer of nginx's stream (ffmpeg, copying it to FLV)
    /// gets H.264 and AAC, decoding cleanly: the very packets of the HLS written beside it, from
    /// where it joined to the last one (the push's end reaches nginx whole), none missing.
    func testAnRTMPPushIsReadBackFromNginx() throws {
        try LiveServers.require("nginx")
        let url = "rtmp://127.0.0.1:\(try servers.rtmpServer())/live/record"
        let flv = servers.folder.file("read-back.flv")
        let hls = HLSFolder(path: folder.file("hls"))
        let recording = try start(["--duration", "6", "--push", url, "--hls", hls.path, "--hls-window", "0"])
        let reader = try readBack(url, of: recording, into: flv)
        finish(recording)
        XCTAssertEqual(recording.events("output_started", output: url).count, 1, "\(recording.events)")
        XCTAssertEqual(recording.events("output_lost", output: url).count, 0, "\(recording.events)")
        XCTAssertTrue(reader.waitForExit(20), "nginx's viewer ends 3 s after the stream: \(reader.output)")
        reader.stop()
        let reference = try MediaReadBack.packets(try hls.joined(into: folder.file("reference.mp4")))
        XCTAssertEqual(reference.count, try framesWritten(recording))
        try Self.assertReadBack(flv, isTheEndOf: reference, what: "the RTMP push read back from nginx")
    }

    /// What nginx's viewer read of a push: H.264 and AAC, decoding cleanly, and the same H.264
    /// packets (sizes, packet for packet) as `reference` from where the viewer joined (at a
    /// keyframe, within 3 s: an ffmpeg started, connected and probed) to the recording's end.
    static func assertReadBack(_ flv: String, isTheEndOf reference: [MediaReadBack.Packet], what: String) throws {
        XCTAssertEqual(Set(try MediaReadBack.streams(flv)), ["h264:video", "aac:audio"], what)
        XCTAssertEqual(try MediaReadBack.decodingErrors(flv), "", what)
        let packets = try MediaReadBack.packets(flv)
        XCTAssertEqual(TimestampContinuity.faults(packets, fps: 30), [], what)
        let uneven = zip(packets, packets.dropFirst()).map { $1.pts - $0.pts }.filter { abs($0 - 1.0 / 30) > 0.002 }
        XCTAssertEqual(uneven, [], "\(what): each picture 33 or 34 ms (FLV's milliseconds) after the one before")
        XCTAssertEqual(try MediaReadBack.decodedFrames(flv), packets.count, "\(what): every picture decodes")
        let joined = reference.count - packets.count
        XCTAssertTrue((0...90).contains(joined), "\(what): \(packets.count) packets of \(reference.count)")
        XCTAssertEqual(packets.map(\.size), Array(reference.suffix(packets.count)).map(\.size),
                       "\(what): the recording's packets from where the viewer joined to the end, none missing")
    }

    /// `--push srt://` to an SRT listener (ffmpeg's, copying what it receives to MPEG-TS): the
    /// listener gets H.264 and AAC, every picture without a gap, and ends when the recorder closes.
    func testAnSRTPushReachesAListener() throws {
        let ts = servers.folder.file("received.ts")
        let listener = try servers.srtListener(into: ts)
        let url = "srt://127.0.0.1:\(listener.port)"
        let recording = try record(["--duration", "6", "--push", url])
        XCTAssertEqual(recording.events("output_started", output: url).count, 1, "\(recording.events)")
        XCTAssertTrue(listener.process.waitForExit(15), "the listener ends when its caller closes: \(listener.process.output)")
        listener.process.stop()
        try assertPushReadBack(ts, frames: try framesWritten(recording), what: "the SRT push")
    }

    /// A push's far end holds H.264 and AAC, decodes cleanly, runs without a gap, and has the
    /// frames written less at most the first second (a viewer may join after the push began).
    func assertPushReadBack(_ path: String, frames: Int, what: String) throws {
        XCTAssertEqual(Set(try MediaReadBack.streams(path)), ["h264:video", "aac:audio"], what)
        XCTAssertEqual(try MediaReadBack.decodingErrors(path), "", what)
        let packets = try MediaReadBack.packets(path)
        XCTAssertEqual(TimestampContinuity.faults(packets, fps: 30), [], what)
        XCTAssertEqual(try MediaReadBack.decodedFrames(path), packets.count, "\(what): every picture decodes")
        XCTAssertLessThanOrEqual(packets.count, frames, what)
        XCTAssertGreaterThanOrEqual(packets.count, frames - 30, "\(what): all but at most the first second")
    }

    /// `--hls`, `--segments`, an RTMP and an SRT push at once: every output has the same
    /// pictures, within the second a push's viewer may miss at its start, and they come from
    /// one encode: the H.264 packets of the segments, the playlist and nginx's stream are the
    /// same bytes (their sizes match packet for packet).
    func testEveryOutputAtOnceCarriesOneEncode() throws {
        try LiveServers.require("nginx")
        let url = "rtmp://127.0.0.1:\(try servers.rtmpServer())/live/all"
        let flv = servers.folder.file("all.flv"), ts = servers.folder.file("all.ts")
        let listener = try servers.srtListener(into: ts)
        let srt = "srt://127.0.0.1:\(listener.port)"
        let hls = HLSFolder(path: folder.file("hls")), segments = folder.file("segments")
        let recording = try start(["--duration", "8", "--hls", hls.path, "--hls-window", "0", "--segments", segments,
                                   "--push", url, "--push", srt])
        let reader = try readBack(url, of: recording, into: flv)
        finish(recording)
        for output in ["hls", "segments", url, srt] {
            XCTAssertEqual(recording.events("output_started", output: output).count, 1, output)
        }
        reader.waitForExit(15)
        listener.process.waitForExit(15)
        reader.stop()
        listener.process.stop()
        let frames = try framesWritten(recording)
        let fromHLS = try MediaReadBack.packets(try hls.joined(into: folder.file("all-hls.mp4")))
        let fromSegments = try segmentFiles(segments).flatMap { try MediaReadBack.packets(segments + "/" + $0) }
        XCTAssertEqual(fromHLS.count, frames, "the playlist")
        XCTAssertEqual(fromSegments.count, frames, "the segments")
        XCTAssertEqual(fromSegments.map(\.size), fromHLS.map(\.size), "the segments and the playlist hold the same packets")
        try Self.assertReadBack(flv, isTheEndOf: fromHLS, what: "the RTMP push (the playlist's packets: one encode)")
        try assertPushReadBack(ts, frames: frames, what: "the SRT push")
    }
}
