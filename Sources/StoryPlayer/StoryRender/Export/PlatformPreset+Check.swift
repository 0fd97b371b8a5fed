import Foundation

// MARK: - What ffprobe says of a file

/// What `check-preset` compares: a file as ffprobe sees it (`-show_format -show_streams`, and
/// the video's keyframes when the preset limits the GOP).
public struct ProbedFile: Sendable, Equatable {
    public struct Stream: Sendable, Equatable {
        public var type = ""
        public var codec = ""
        public var profile: String?
        /// The size as stored (ffprobe's `width` and `height`).
        public var width = 0, height = 0
        /// The display matrix's turn in degrees, as ffprobe reports it (counter-clockwise: a
        /// phone's portrait clip is -90); 0 without one.
        public var rotation = 0
        public var pixelFormat: String?
        public var fieldOrder: String?
        public var frameRate: Double?
        public var bitRate: Int?
        public var sampleRate: Int?
        public var channels: Int?

        /// Whether the display matrix turns the picture a quarter (or three), so that it is
        /// shown with its sides swapped.
        public var isTurnedSideways: Bool { abs(rotation) % 180 == 90 }
        /// The size as shown, after the display matrix: what players and the platforms show,
        /// and what `check-preset` holds to the preset.
        public var shownWidth: Int { isTurnedSideways ? height : width }
        public var shownHeight: Int { isTurnedSideways ? width : height }
    }

    public var formatName = ""
    public var duration: Double?
    public var sizeBytes: Int?
    public var bitRate: Int?
    public var streams: [Stream] = []
    /// The longest run of video frames from one keyframe to the next (the last GOP included);
    /// nil when not asked for.
    public var longestGOP: Int?

    public var video: Stream? { streams.first { $0.type == "video" } }
    public var audio: Stream? { streams.first { $0.type == "audio" } }

    /// Reads ffprobe's JSON (`-print_format json -show_format -show_streams`).
    public init(ffprobeJSON data: Data) throws(RenderError) {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw RenderError(.output, "ffprobe's answer is not the JSON expected")
        }
        let format = root["format"] as? [String: Any] ?? [:]
        formatName = format["format_name"] as? String ?? ""
        duration = Self.number(format["duration"])
        sizeBytes = Self.number(format["size"]).map { Int($0) }
        bitRate = Self.number(format["bit_rate"]).map { Int($0) }
        for entry in root["streams"] as? [[String: Any]] ?? [] {
            var stream = Stream()
            stream.type = entry["codec_type"] as? String ?? ""
            stream.codec = entry["codec_name"] as? String ?? ""
            stream.profile = entry["profile"] as? String
            stream.width = entry["width"] as? Int ?? 0
            stream.height = entry["height"] as? Int ?? 0
            stream.pixelFormat = entry["pix_fmt"] as? String
            stream.fieldOrder = entry["field_order"] as? String
            stream.frameRate = Self.rate(entry["avg_frame_rate"] as? String) ?? Self.rate(entry["r_frame_rate"] as? String)
            stream.bitRate = Self.number(entry["bit_rate"]).map { Int($0) }
            stream.sampleRate = Self.number(entry["sample_rate"]).map { Int($0) }
            stream.channels = entry["channels"] as? Int
            stream.rotation = Self.rotation(entry)
            streams.append(stream)
        }
    }

    public init() {}

    /// ffprobe writes most numbers as strings ("1.000000", "48000").
    private static func number(_ value: Any?) -> Double? {
        if let string = value as? String { return Double(string) }
        return (value as? NSNumber)?.doubleValue
    }

    /// The display matrix's turn: its side data's `rotation` (FFmpeg 5.1), else the `rotate`
    /// tag older files and older FFmpegs give, which turns the other way (clockwise).
    private static func rotation(_ stream: [String: Any]) -> Int {
        let sideData = stream["side_data_list"] as? [[String: Any]] ?? []
        if let turn = sideData.lazy.compactMap({ number($0["rotation"]) }).first { return Int(turn.rounded()) }
        if let tag = number((stream["tags"] as? [String: Any])?["rotate"]) { return -Int(tag.rounded()) }
        return 0
    }

    /// "30000/1001" → 29.97; "0/0" → nil.
    private static func rate(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: "/"), parts.count == 2,
              let num = Double(parts[0]), let den = Double(parts[1]), num > 0, den > 0 else { return nil }
        return num / den
    }

    /// The longest GOP from ffprobe's packet flags of the video, one line per packet ("K__", "___").
    public static func longestGOP(packetFlags text: String) -> Int? {
        let keys = text.split(whereSeparator: \.isNewline).map { $0.hasPrefix("K") }
        guard !keys.isEmpty else { return nil }
        var longest = 0, run = 0
        for key in keys {
            if key { longest = max(longest, run); run = 0 }
            run += 1
        }
        return max(longest, run)
    }
}

// MARK: - The limits a file breaks

/// One limit of a preset that a file breaks: `size: 1280x720, reels needs 1080x1920`.
public struct PresetViolation: Sendable, Equatable, CustomStringConvertible {
    /// The limit's name: container, video, codec, profile, size, frame rate, pixel format, scan,
    /// video bit rate, GOP, audio codec, audio sample rate, audio channels, duration, file size.
    public let limit: String
    public let message: String
    public var description: String { "\(limit): \(message)" }
}

extension PlatformPreset {
    /// Every limit of the preset that `file` breaks, in the order above; empty when it holds to all.
    public func violations(of file: ProbedFile) -> [PresetViolation] {
        var broken: [PresetViolation] = []
        func breaks(_ limit: String, _ message: String) { broken.append(PresetViolation(limit: limit, message: message)) }
        if !file.formatName.split(separator: ",").contains("mp4") {
            breaks("container", "\(file.formatName), \(name) needs MP4")
        }
        if let video = file.video {
            if !videoCodecs.contains(video.codec) {
                breaks("codec", "\(video.codec), \(name) needs \(videoCodecs.joined(separator: " or "))")
            }
            if video.codec == "h264", let profile = video.profile, !profiles.contains(profile) {
                breaks("profile", "\(profile), \(name) needs \(profiles.joined(separator: " or "))")
            }
            // The shown size, as the platforms take it: a phone's portrait clip is stored
            // landscape with a display matrix that turns it upright.
            if video.shownWidth != width || video.shownHeight != height {
                let stored = video.isTurnedSideways
                    ? " as shown (stored \(video.width)x\(video.height), turned a quarter by its display matrix)" : ""
                breaks("size", "\(video.shownWidth)x\(video.shownHeight)\(stored), \(name) needs \(width)x\(height)")
            }
            if let rate = video.frameRate, rate > maxFPS + 0.01 || rate < minFPS - 0.01 {
                breaks("frame rate", "\(Self.spoken(rate)) fps, \(name) needs \(Self.spoken(minFPS)) to \(Self.spoken(maxFPS))")
            }
            if let format = video.pixelFormat, format != "yuv420p" {
                breaks("pixel format", "\(format), \(name) needs yuv420p (4:2:0)")
            }
            if let order = video.fieldOrder, order != "progressive", order != "unknown" {
                breaks("scan", "interlaced (\(order)), \(name) needs progressive")
            }
            if let cap = maxVideoBitRate, let rate = video.bitRate ?? file.bitRate, rate > cap {
                breaks("video bit rate", "\(Self.megabits(rate)) Mbit/s, \(name) allows at most \(Self.megabits(cap))")
            }
            if checksGOP, let gop = file.longestGOP, let rate = video.frameRate {
                let half = max(1, Int((rate / 2).rounded()))
                if gop > half { breaks("GOP", "\(gop) frames from keyframe to keyframe, \(name) needs at most \(half) (half the frame rate)") }
            }
        } else {
            breaks("video", "none, \(name) needs an H.264 video stream")
        }
        if let audio = file.audio {
            if audio.codec != "aac" { breaks("audio codec", "\(audio.codec), \(name) needs aac") }
            if let rate = audio.sampleRate, !audioSampleRates.contains(rate) {
                breaks("audio sample rate", "\(rate) Hz, \(name) needs \(audioSampleRates.map(String.init).joined(separator: " or ")) Hz")
            }
            if let channels = audio.channels, channels > maxAudioChannels {
                breaks("audio channels", "\(channels), \(name) allows at most \(maxAudioChannels)")
            }
        }
        if let duration = file.duration, duration < minDuration || duration > maxDuration {
            breaks("duration", "\(Self.spoken(duration)) s, \(name) needs \(Self.spoken(minDuration)) to \(Self.spoken(maxDuration)) s")
        }
        if let cap = maxFileBytes, let size = file.sizeBytes, size > cap {
            breaks("file size", "\(size) bytes, \(name) allows at most \(cap)")
        }
        return broken
    }

    private static func spoken(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    private static func megabits(_ bits: Int) -> String { String(format: "%.1f", Double(bits) / 1_000_000) }
}

// MARK: - Asking ffprobe

extension ProbedFile {
    /// Runs ffprobe (found on `PATH`) on `path`: the format and streams, and the video's
    /// keyframes when `keyframes` is set.
    public static func probe(_ path: String, keyframes: Bool) throws(RenderError) -> ProbedFile {
        guard FileManager.default.fileExists(atPath: path) else {
            throw RenderError(.output, "cannot check \(path)", cause: "no such file")
        }
        guard let ffprobe = findFFprobe() else {
            throw RenderError(.output, "cannot check \(path)", cause: "ffprobe is not installed (on Debian: apt-get install ffmpeg)")
        }
        var file = try ProbedFile(ffprobeJSON: try run(ffprobe, ["-v", "error", "-print_format", "json", "-show_format",
                                                                 "-show_streams", path], checking: path))
        if keyframes {
            let flags = try run(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                          "-of", "csv=p=0", path], checking: path)
            file.longestGOP = longestGOP(packetFlags: String(decoding: flags, as: UTF8.self))
        }
        return file
    }

    private static func findFFprobe() -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/ffprobe" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func run(_ program: String, _ arguments: [String], checking path: String) throws(RenderError) -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw RenderError(.output, "cannot check \(path)", cause: "cannot run ffprobe: \(error)")
        }
        // ffprobe's errors are one line: stdout is read to its end first without a stall.
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RenderError(.output, "cannot check \(path)",
                              cause: "ffprobe: \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return data
    }
}
