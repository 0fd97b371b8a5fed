import Foundation

/// What a far end reads of a recording, by ffprobe and ffmpeg (not by our own demuxer, so a
/// file we can read and a player cannot is caught): its packets, its frames, its decoding errors.
public enum MediaReadBack {
    /// One packet as ffprobe lists it, in the file's order (decode order).
    public struct Packet: Equatable {
        public let pts: Double
        public let dts: Double
        public let keyframe: Bool
        public let size: Int
    }

    /// The packets of a stream (`v:0`, `a:0`) of `path`. `input` options go before `-i` (an HLS
    /// playlist's `-allowed_extensions`, say).
    public static func packets(_ path: String, stream: String = "v:0", input: [String] = []) throws -> [Packet] {
        let text = try probe(input + ["-select_streams", stream, "-show_entries", "packet=pts_time,dts_time,flags,size",
                                      "-of", "csv=p=0", path])
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, let pts = Double(fields[0]) else { return nil }
            return Packet(pts: pts, dts: Double(fields[1]) ?? pts, keyframe: fields[3].hasPrefix("K"), size: Int(fields[2]) ?? 0)
        }
    }

    /// How many pictures ffprobe decodes of the first video stream.
    public static func decodedFrames(_ path: String, input: [String] = []) throws -> Int {
        let text = try probe(input + ["-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                      "-of", "csv=p=0", path])
        return Int(text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
    }

    /// The kinds of the streams (`video`, `audio`) and their codecs, as `video:h264`.
    public static func streams(_ path: String, input: [String] = []) throws -> [String] {
        try probe(input + ["-show_entries", "stream=codec_type,codec_name", "-of", "csv=p=0", path])
            .split(separator: "\n").map { line in
                let fields = line.split(separator: ",").map(String.init)
                return fields.count == 2 ? "\(fields[0]):\(fields[1])" : String(line)
            }
    }

    /// What ffmpeg says while it decodes the whole of `path` at `-v error`: empty for a file
    /// that decodes cleanly. The decoded frames keep the file's time base (`-enc_time_base -1`):
    /// in the frame rate's, FLV's millisecond times a few ms off its grid fell two in one slot,
    /// and the null muxer said "non monotonically increasing dts" of a stream without a fault.
    public static func decodingErrors(_ path: String, input: [String] = []) throws -> String {
        let ffmpeg = LiveServers.which("ffmpeg") ?? "/usr/bin/ffmpeg"
        let outcome = try ExternalProgram.outcome(ffmpeg, ["-v", "error", "-nostdin"] + input
                                                  + ["-i", path, "-enc_time_base", "-1", "-f", "null", "-"])
        let said = String(decoding: outcome.stderr, as: UTF8.self)
        return outcome.status == 0 ? said : "exit \(outcome.status): \(said)"
    }

    /// A fragmented MP4 segment of an HLS stream as a player reads it: the init segment, then the
    /// media segments, one file (`cat`), so ffprobe reads what the playlist's player decodes.
    public static func joined(init initSegment: String, segments: [String], into target: String) throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: initSegment))
        for segment in segments { bytes.append(try Data(contentsOf: URL(fileURLWithPath: segment))) }
        try bytes.write(to: URL(fileURLWithPath: target))
        return target
    }

    private static func probe(_ arguments: [String]) throws -> String {
        let ffprobe = LiveServers.which("ffprobe") ?? "/usr/bin/ffprobe"
        return String(decoding: try ExternalProgram.run(ffprobe, ["-v", "error"] + arguments), as: UTF8.self)
    }
}

/// Whether a stream's video timestamps are those of an unbroken realtime picture sequence: each
/// picture one frame interval after the one before, none missing, none twice, none backwards.
public enum TimestampContinuity {
    /// The faults in `packets` (decode order) at `fps`, each said in words; empty when none.
    /// A gap is a step over 1.5 intervals (a missing picture); a repeat, a step under half of one.
    public static func faults(_ packets: [MediaReadBack.Packet], fps: Double) -> [String] {
        let interval = 1 / fps
        var faults: [String] = []
        for (previous, packet) in zip(packets, packets.dropFirst()) where packet.dts <= previous.dts {
            faults.append("dts backwards or repeated: \(previous.dts) then \(packet.dts)")
        }
        let presented = packets.map(\.pts).sorted()
        for (previous, pts) in zip(presented, presented.dropFirst()) {
            let step = pts - previous
            if step < interval / 2 { faults.append("pts \(pts) repeats \(previous)") }
            if step > interval * 1.5 { faults.append(String(format: "gap of %.3f s after pts %.3f", step, previous)) }
        }
        return faults
    }
}
