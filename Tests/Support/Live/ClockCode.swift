import Compositor
import Foundation
import XCTest

/// Reads back what `Tests/Support/Python/clock-code.py` draws into each picture it makes: its number
/// and the wall clock when it was made. A test renders a clock-coded live source and reads the
/// frames, so it checks what a viewer saw: how many distinct pictures, and how old each was.
public enum ClockCode {
    public static let script = Fixture.packageRoot.appendingPathComponent("Tests/Support/Python/clock-code.py").path
    /// The generator's picture size, and its grid of 40 px squares (8 × 7, centred).
    public static let width = 360, height = 640, block = 40, columns = 8, rows = 7
    public static var left: Int { (width - columns * block) / 2 }
    public static var top: Int { (height - rows * block) / 2 }

    public struct Code: Equatable {
        public let number: Int
        /// Milliseconds since 1970, mod 2^32.
        public let millis: UInt32
    }

    /// The code a frame shows, or nil where its squares hold none (a loading frame, a poster).
    public static func read(_ frame: RGBAImage) -> Code? {
        var bits: UInt64 = 0
        for i in 0..<(columns * rows) {
            let x = (left + (i % columns) * block + block / 2) * frame.width / width
            let y = (top + (i / columns) * block + block / 2) * frame.height / height
            let i = (y * frame.width + x) * 4
            let luma: Int = (Int(frame.pixels[i]) + Int(frame.pixels[i + 1]) + Int(frame.pixels[i + 2])) / 3
            bits = bits << 1 | (luma >= 128 ? 1 : 0)
        }
        let bytes: [UInt8] = (0..<7).map { (k: Int) -> UInt8 in UInt8(truncatingIfNeeded: bits >> UInt64(8 * (6 - k))) }
        let sum: UInt8 = bytes[0..<6].reduce(UInt8(0)) { $0 &+ $1 }
        guard sum ^ 0xA5 == bytes[6] else { return nil }
        let number = Int(bytes[0]) << 8 | Int(bytes[1])
        let millis: UInt32 = bytes[2..<6].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Code(number: number, millis: millis)
    }

    /// What a render's frames showed.
    public struct Reading {
        /// Each frame's code, in frame order.
        public let codes: [Code?]
        public let fps: Double
        /// When frame 0 was due (a realtime render's `clock_started_at`).
        public let startedAt: Double?
        /// The frames a realtime render wrote late, as copies of the one before (its summary's
        /// `late_frames`): the machine had no time to draw them, so they cannot show a new
        /// picture whatever the player does.
        public var late: Set<Int> = []

        public init(codes: [Code?], fps: Double, startedAt: Double?, late: Set<Int> = []) {
            self.codes = codes
            self.fps = fps
            self.startedAt = startedAt
            self.late = late
        }

        /// Distinct pictures per second, from the first frame that shows one to the end, over
        /// the frames drawn on time. A CI machine busy elsewhere drew 4 % of a realtime
        /// render's frames late (24.5 distinct a second where the player showed every
        /// picture it had time to draw); the count of late frames is in `diagnosis`.
        public var distinctPerSecond: Double {
            guard let first = codes.firstIndex(where: { $0 != nil }) else { return 0 }
            let window = codes[first...]
            let distinct = Set(window.compactMap { $0?.number }).count
            let drawn = window.indices.filter { !late.contains($0) }.count
            return drawn == 0 ? 0 : Double(distinct) / (Double(drawn) / fps)
        }

        /// Hitches: a picture held on screen and then, at once, one or more pictures after it
        /// never shown. The clock stood while the stream was late, then ran on past what came.
        /// Playing slower than the source repeats a picture now and then, and faster skips one
        /// now and then; neither does both at once. A frame written late (a copy) is the
        /// machine's hold, not the player's, and does not count.
        public var hitches: Int {
            var count = 0, held = false
            for n in codes.indices.dropFirst() {
                guard let previous = codes[n - 1]?.number, let number = codes[n]?.number, !late.contains(n) else {
                    held = false
                    continue
                }
                if number == previous {
                    held = true
                } else {
                    if held, number > previous + 1 { count += 1 }
                    held = false
                }
            }
            return count
        }

        /// The last `count` frames, with their late ones and when the first of them was due.
        public func suffix(_ count: Int) -> Reading {
            let start = max(0, codes.count - count)
            return Reading(codes: Array(codes[start...]), fps: fps, startedAt: startedAt.map { $0 + Double(start) / fps },
                           late: Set(late.filter { $0 >= start }.map { $0 - start }))
        }

        /// What to look at when a reading falls short: frames, late ones, distinct pictures,
        /// pictures the publisher made that never showed, and the longest hold of one picture.
        public var diagnosis: String {
            let numbers = codes.compactMap { $0?.number }
            let distinct = Set(numbers)
            let skipped = (distinct.max() ?? 0) - (distinct.min() ?? 0) + 1 - distinct.count
            var longest = 0, run = 0, previous: Int?
            for code in codes {
                run = code?.number == previous ? run + 1 : 1
                previous = code?.number
                longest = max(longest, run)
            }
            let uncoded = codes.filter { $0 == nil }.count
            return "\(codes.count) frames (\(uncoded) without a picture, \(late.count) late), "
                + "\(distinct.count) distinct pictures, \(max(0, skipped)) never shown, longest hold \(longest) frames, \(hitches) hitches"
        }

        /// How old each coded frame's picture was when the frame was due, in ms (realtime only).
        public var latencies: [Double] {
            guard let startedAt else { return [] }
            return codes.enumerated().compactMap { n, code in
                guard let code else { return nil }
                return (due(n, startedAt: startedAt) - made(code, frame: n, startedAt: startedAt)) * 1000
            }
        }

        /// When frame `n` was due, in seconds since 1970.
        public func due(_ n: Int, startedAt: Double) -> Double {
            Double(Int64(((startedAt + Double(n) / fps) * 1000).rounded(.down))) / 1000
        }

        /// When `code`, shown in frame `n`, was made, in seconds since 1970: its 32 bits of
        /// milliseconds placed in the 2^32 ms span around when the frame was due.
        public func made(_ code: Code, frame n: Int, startedAt: Double) -> Double {
            let due = Int64((self.due(n, startedAt: startedAt) * 1000).rounded())
            var made = (due & ~0xFFFF_FFFF) | Int64(code.millis)
            if made > due + (1 << 31) { made -= 1 << 32 }
            return Double(made) / 1000
        }

        public var latencyP50: Double? {
            let sorted = latencies.sorted()
            return sorted.isEmpty ? nil : sorted[sorted.count / 2]
        }
    }

    /// Reads every `frame-NNNNNN.png` of a render folder.
    public static func read(folder: String, summary: [String: Any]) throws -> Reading {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasPrefix("frame-") && $0.hasSuffix(".png") }.sorted()
        let codes = try names.map { try read(RGBAImage(contentsOfPNG: (folder as NSString).appendingPathComponent($0))) }
        return Reading(codes: codes, fps: summary["timeline_fps"] as? Double ?? 30,
                       startedAt: summary["clock_started_at"] as? Double,
                       late: Set((summary["late_frames"] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.intValue }))
    }
}

/// Clock-coded live publishers of the two families users run: ffmpeg and GStreamer, each with
/// sound (a sine), H.264 with a 1 s GOP, 30 fps, at the generator's 360x640.
public enum ClockCodedPublisher: String, CaseIterable {
    case ffmpeg, gstreamer

    /// How a publisher's stream departs from the well-behaved one users test with.
    public enum Quirk: Equatable {
        case none
        /// Timestamps 23 and 43 ms apart in turn at 30 fps: every odd picture stamped 10 ms early.
        /// ffmpeg stamps them so (`setpts`); GStreamer stamps each picture as it arrives
        /// (`fdsrc do-timestamp=true`) from a generator that writes every odd one 10 ms early,
        /// as a capture source on a busy machine delivers frames.
        case unevenTimestamps
        /// H.264 whose SPS and PPS never reach a viewer: ffmpeg strips them (`filter_units`);
        /// GStreamer's `h264parse` sends them only at its start, before any viewer joins.
        case withheldParameterSets
    }

    /// The shell pipeline `clock-code.py | <encoder>` into `sink`: for ffmpeg, its output
    /// options; for GStreamer, the elements after the muxer's input.
    public func command(_ output: Output, quirk: Quirk = .none) -> String {
        let source = "python3 '\(ClockCode.script)'" + (quirk == .unevenTimestamps && self == .gstreamer ? " --uneven 10" : "")
        switch self {
        case .ffmpeg:
            let uneven = quirk == .unevenTimestamps
                ? #"-vf "settb=1/1000,setpts='(N/30-if(mod(N,2),0.01,0))/TB'" -enc_time_base:v 1:1000 "# : ""
            let withheld = quirk == .withheldParameterSets ? "-bsf:v 'filter_units=remove_types=7|8' " : ""
            let head = "ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s 360x640 -r 30 -i - -f lavfi -i sine=frequency=440:sample_rate=48000 "
                + uneven + "-c:v libx264 -preset veryfast -tune zerolatency -g 30 -pix_fmt yuv420p " + withheld + "-c:a aac "
            switch output {
            case .hls(let folder):
                return "\(source) | \(head) -f hls -hls_time 1 -hls_list_size 5 -hls_flags delete_segments '\(folder)/live.m3u8'"
            case .rtmp(let url):
                return "\(source) | \(head) -f flv '\(url)'"
            case .srtListener(let port):
                return "\(source) | \(head) -f mpegts 'srt://127.0.0.1:\(port)?mode=listener'"
            case .httpTS(let port):
                return "\(source) | \(head) -f mpegts -listen 1 'http://127.0.0.1:\(port)/live.ts'"
            case .dash(let folder):
                // A segment timeline: with numbers computed from the clock instead, FFmpeg 5.1's
                // DASH demuxer asks for segments not yet written (404) and never opens.
                return "\(source) | \(head) -f dash -seg_duration 1 -window_size 5 -extra_window_size 5 -use_template 1 "
                    + "-use_timeline 1 '\(folder)/live.mpd'"
            }
        case .gstreamer:
            let stamps = quirk == .unevenTimestamps ? " do-timestamp=true" : ""
            let video = "fdsrc fd=0 blocksize=691200\(stamps) ! rawvideoparse width=360 height=640 format=rgb framerate=30/1 ! videoconvert "
                + "! video/x-raw,format=I420 ! x264enc tune=zerolatency speed-preset=veryfast key-int-max=30 ! h264parse ! queue"
            // Stamped as they arrive, the pictures are live, and so must the muxer be: its sound
            // source live too, as the issue's report had it (with a sound source that is not,
            // no picture reached the viewer in 8 s).
            let audio = "audiotestsrc\(quirk == .unevenTimestamps ? " is-live=true" : "") wave=sine ! audioconvert ! avenc_aac ! aacparse ! queue"
            switch output {
            case .hls(let folder):
                // Keyframe requests at each target duration would add a keyframe beside x264's
                // own, and with it a segment of one picture.
                return "\(source) | gst-launch-1.0 -q \(video) ! hlssink2 name=s send-keyframe-requests=false "
                    + "location='\(folder)/seg%05d.ts' playlist-location='\(folder)/live.m3u8' target-duration=1 "
                    + "max-files=8 playlist-length=5 \(audio) ! s.audio"
            case .rtmp(let url):
                return "\(source) | gst-launch-1.0 -q \(video) ! flvmux name=m streamable=true ! rtmp2sink location='\(url)' \(audio) ! m."
            case .srtListener(let port):
                // As GStreamer publishes by default: SPS and PPS are not sent again for a viewer
                // who joins later, so its H.264 never decodes.
                return "\(source) | gst-launch-1.0 -q \(video) ! mpegtsmux name=m ! srtsink uri='srt://127.0.0.1:\(port)?mode=listener' "
                    + "wait-for-connection=false audiotestsrc is-live=true wave=sine ! audioconvert ! avenc_aac ! aacparse ! queue ! m."
            case .httpTS:
                preconditionFailure("GStreamer serves no MPEG-TS over HTTP here")
            case .dash(let folder):
                // dashsink segments each stream on its own, so the sound must be live to keep pace.
                // It asks for a keyframe every target duration and cannot be told not to: beside
                // x264's own (key-int-max=30) that cut a one-picture segment after each second,
                // so its segment numbers ran twice as fast as the duration its manifest declares,
                // a stream no DASH player can place (FFmpeg's DASH demuxer played it 10 s behind).
                // Left to dashsink's requests, the GOP is its 1 s segments.
                let video = video.replacingOccurrences(of: "key-int-max=30", with: "key-int-max=60")
                return "\(source) | gst-launch-1.0 -q \(video) ! dashsink name=d dynamic=true mpd-root-path='\(folder)' "
                    + "mpd-filename=live.mpd target-duration=1 muxer=ts audiotestsrc is-live=true wave=sine ! audioconvert "
                    + "! avenc_aac ! aacparse ! queue ! d.audio_0"
            }
        }
    }

    public enum Output {
        case hls(folder: String)
        case rtmp(url: String)
        case dash(folder: String)
        /// An SRT listener on 127.0.0.1 (ffmpeg's serves one caller).
        case srtListener(port: Int)
        /// MPEG-TS over HTTP, `ffmpeg -listen 1` (one client).
        case httpTS(port: Int)
    }

    public var programs: [String] { self == .ffmpeg ? ["ffmpeg", "python3"] : ["gst-launch-1.0", "python3"] }
}

extension ServerSet {
    /// Starts a clock-coded publisher. Foundation starts each child as the leader of a process
    /// group of its own, so the shell's trap stops the generator and the encoder both, by group.
    /// `after` seconds delays it within its own shell, so a test can start it from its own
    /// thread: one started from a dispatch worker thread inherited that thread's blocked
    /// signals, its shell never ran the trap, and the test hung in `tearDown`.
    public func publishClockCoded(_ publisher: ClockCodedPublisher, to output: ClockCodedPublisher.Output,
                           after delay: Double = 0, quirk: ClockCodedPublisher.Quirk = .none) throws -> ServerProcess {
        try LiveServers.require(publisher.programs)
        let command = delay > 0 ? "{ sleep \(delay); \(publisher.command(output, quirk: quirk)); }" : publisher.command(output, quirk: quirk)
        return try start("bash", ["-c", "trap 'trap - TERM INT; kill -- -$$' TERM INT; \(command) & wait"],
                         name: "clock-\(publisher.rawValue)-\(UUID().uuidString.prefix(8))")
    }
}
