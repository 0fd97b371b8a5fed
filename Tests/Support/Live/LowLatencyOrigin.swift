import Foundation
import XCTest

/// A low-latency origin on 127.0.0.1 (`Tests/Support/Python/ll_origin.py`) fed by a clock-coded ffmpeg
/// publisher with sound: Low-Latency HLS cut from ffmpeg's fragmented MP4 (parts, preload hints,
/// blocking reloads, delta updates), or ffmpeg's low-latency DASH uploaded to it and served
/// chunked while it is written. The origin logs every request, which is how a test sees what
/// the player asked for.
public struct LowLatencyOrigin {
    public static let script = Fixture.packageRoot.appendingPathComponent("Tests/Support/Python/ll_origin.py").path

    /// The playlist's or manifest's URL.
    public let url: String
    /// The origin's request log: one JSON object a line.
    public let log: String

    /// Each request the origin answered so far.
    public func requests() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The clock-coded 30 fps encoder both families of tests use, before its output options.
    public static let encoder = "ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s 360x640 -r 30 -i - -f lavfi -i sine=frequency=440:sample_rate=48000 "
        + "-c:v libx264 -preset veryfast -tune zerolatency -g 30 -sc_threshold 0 -pix_fmt yuv420p -c:a aac"
}

extension ServerSet {
    /// Low-Latency HLS with 0.333 s parts of 1 s segments; `plain` serves the same stream as plain
    /// HLS (no parts), for the fallback. `missing`: paths (a regex) that answer 404 though the
    /// playlist lists them. Waits until two segments are listed.
    public func lowLatencyHLS(plain: Bool = false, missing: String? = nil) throws -> LowLatencyOrigin {
        try LiveServers.require("ffmpeg", "python3")
        let name = "llhls-\(UUID().uuidString.prefix(8))"
        let ready = folder.file(name + ".ready"), log = folder.file(name + "-requests.jsonl")
        let command = "python3 '\(ClockCode.script)' | \(LowLatencyOrigin.encoder) -f mp4 "
            + "-movflags empty_moov+default_base_moof+frag_keyframe+delay_moov -frag_duration 333333 pipe:1 "
            + "| python3 '\(LowLatencyOrigin.script)' hls --port 0 --log '\(log)' --ready '\(ready)'\(plain ? " --no-ll" : "")"
            + (missing.map { " --missing '\($0)'" } ?? "")
        let process = try start("bash", ["-c", "trap 'trap - TERM INT; kill -- -$$' TERM INT; \(command) & wait"], name: name)
        return LowLatencyOrigin(url: try readyURL(ready, process: process, what: "Low-Latency HLS") + "/live.m3u8", log: log)
    }

    /// Low-latency DASH from ffmpeg's dash muxer (`-ldash 1 -streaming 1 -lhls 1`, 1 s segments of 0.2 s
    /// chunks, a 1 s latency target, `UTCTiming`), uploaded to the origin, which serves each
    /// segment while it is written. `missing`: paths (a regex) that answer 404 though the manifest
    /// lists them. Waits until two segments of each stream are whole.
    public func lowLatencyDASH(missing: String? = nil) throws -> LowLatencyOrigin {
        try LiveServers.require("ffmpeg", "python3")
        let name = "lldash-\(UUID().uuidString.prefix(8))"
        let ready = folder.file(name + ".ready"), log = folder.file(name + "-requests.jsonl")
        let port = LiveServers.freePort()
        let origin = try start("python3", [LowLatencyOrigin.script, "dash", "--port", String(port), "--log", log, "--ready", ready]
                                   + (missing.map { ["--missing", $0] } ?? []),
                               name: name + "-origin")
        guard LiveServers.waitUntil(10, { LiveServers.accepts(port: port) }) else {
            throw LiveServers.unavailable("the DASH origin did not start: \(origin.output)")
        }
        let base = "http://127.0.0.1:\(port)"
        // -lhls 1 also writes the same segments as an HLS playlist (with EXT-X-PREFETCH, the
        // community's low-latency HLS, experimental in FFmpeg 5.1): master.m3u8.
        let command = "python3 '\(ClockCode.script)' | \(LowLatencyOrigin.encoder) -f dash -strict experimental -ldash 1 -streaming 1 "
            + "-lhls 1 -hls_playlist 1 -use_template 1 "
            + "-use_timeline 0 -seg_duration 1 -frag_type duration -frag_duration 0.2 -write_prft 1 -target_latency 1 "
            + "-min_playback_rate 0.96 -max_playback_rate 1.04 -window_size 10 -extra_window_size 5 "
            + "-utc_timing_url \(base)/time -method PUT -http_persistent 1 \(base)/live/live.mpd"
        let publisher = try start("bash", ["-c", "trap 'trap - TERM INT; kill -- -$$' TERM INT; \(command) & wait"], name: name)
        _ = try readyURL(ready, process: publisher, what: "low-latency DASH")
        return LowLatencyOrigin(url: base + "/live/live.mpd", log: log)
    }

    /// The origin's URL once its ready file is written (up to 25 s: the publisher shares two
    /// cores with the tests).
    private func readyURL(_ ready: String, process: ServerProcess, what: String) throws -> String {
        guard LiveServers.waitUntil(25, { FileManager.default.fileExists(atPath: ready) }),
              let data = FileManager.default.contents(atPath: ready),
              let fields = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let port = fields["port"] as? Int else {
            throw LiveServers.unavailable("the \(what) origin never became ready: \(process.output)")
        }
        return "http://127.0.0.1:\(port)"
    }
}
