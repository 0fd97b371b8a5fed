import ArgumentParser
import Foundation
import StoryPlayer

/// `record`'s outputs: `--hls`, `--segments`, `--push`, and their settings.
struct RecordOutputArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Write HLS here: index.m3u8, init.mp4 and segment-NNNNNN.m4s (fMP4).", valueName: "dir"))
    var hls: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of an HLS segment (cut at the next keyframe), \(RecordOutputArguments.hlsSegments.spoken).", valueName: "seconds"))
    var hlsSegment = RecordOptions.defaultHLSSegment

    @Option(parsing: .unconditional, help: ArgumentHelp("Segments in the HLS playlist's sliding window (older files are deleted); 0: an EVENT playlist that keeps every segment and becomes VOD (EXT-X-ENDLIST) at a clean stop.", valueName: "N"))
    var hlsWindow = RecordOptions.defaultHLSWindow

    @Option(help: ArgumentHelp("Write MP4 segments here, named by the UTC time of their first frame (20261206T234000Z.mp4).", valueName: "dir"))
    var segments: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds of an MP4 segment, \(RecordOutputArguments.segmentTimes.spoken): files are cut at the first keyframe at or after each UTC multiple of it.", valueName: "seconds"))
    var segmentTime = RecordOptions.defaultSegmentTime

    @Option(help: ArgumentHelp("Send the recording to this ingest as it is made: rtmp://, rtmps:// or srt://. Give it again for more.", valueName: "URL"))
    var push: [String] = []

    static let hlsSegments = 0.5...60.0
    static let segmentTimes = 1.0...86400.0

    func validate() throws {
        guard hls != nil || segments != nil || !push.isEmpty else {
            throw ValidationError("record needs an output: --hls DIR, --segments DIR or --push URL")
        }
        guard Self.hlsSegments.contains(hlsSegment) else { throw ValidationError("--hls-segment must be \(Self.hlsSegments.spoken) seconds") }
        guard (0...100_000).contains(hlsWindow) else { throw ValidationError("--hls-window must be 0 to 100000 segments") }
        guard Self.segmentTimes.contains(segmentTime) else { throw ValidationError("--segment-time must be \(Self.segmentTimes.spoken) seconds") }
        for url in push {
            let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            guard url.contains("://"), RecordOptions.pushSchemes.contains(scheme) else {
                throw ValidationError("--push \(url): give an rtmp://, rtmps:// or srt:// URL")
            }
        }
        if let hls, let segments, (hls as NSString).standardizingPath == (segments as NSString).standardizingPath {
            throw ValidationError("--hls and --segments need folders of their own, not both \(hls)")
        }
    }

    func recordOptions() -> RecordOptions {
        var options = RecordOptions()
        if let hls {
            var playlist = RecordOptions.HLS(folder: hls)
            playlist.segmentSeconds = hlsSegment
            playlist.window = hlsWindow
            options.hls = playlist
        }
        if let segments {
            var files = RecordOptions.Segments(folder: segments)
            files.segmentSeconds = segmentTime
            options.segments = files
        }
        options.push = push
        return options
    }

    /// The outputs as a sentence.
    var spoken: String {
        var parts: [String] = []
        if let hls { parts.append("HLS in \(hls)") }
        if let segments { parts.append("MP4 segments in \(segments)") }
        parts += push
        return parts.joined(separator: ", ")
    }
}

/// `record`'s encode: the quality and speed flags `render --mp4` has, a bit-rate cap and the GOP.
struct RecordEncodingArguments: ParsableArguments {
    @Option(parsing: .unconditional, help: "x264's constant rate factor (lower: better and larger). Default: \(ClipOptions.defaultCRF).")
    var crf: Int?

    @Option(help: "x264's speed preset (ultrafast … veryslow).")
    var x264Preset = ClipOptions.defaultPreset

    @Option(help: ArgumentHelp("A cap on the video's bit rate (the crf's quality, never more), e.g. 4500k or 6M; what an ingest's limits ask for. Default: none.", valueName: "rate"))
    var bitrate: BitRate?

    @Option(parsing: .unconditional, help: ArgumentHelp("Frames from one keyframe to the next (closed GOPs), \(RecordEncodingArguments.gops.spoken). Default: one second of frames. HLS segments and MP4 segments are cut at keyframes.", valueName: "frames"))
    var gop: Int?

    @Option(help: ArgumentHelp("A platform's limits: \(PlatformPreset.names.joined(separator: ", ")). Sets the canvas and frame rate (so not with --size or --fps), H.264 High and the bit-rate cap.", valueName: "platform"))
    var preset: String?

    static let gops = 1...600

    func validate() throws {
        if let crf, !ExportFormat.mp4H264.crfRange.contains(crf) {
            throw ValidationError("--crf must be \(ExportFormat.mp4H264.crfRange.spoken) for H.264")
        }
        guard ClipOptions.presets.contains(x264Preset) else {
            throw ValidationError("--x264-preset must be one of \(ClipOptions.presets.joined(separator: ", "))")
        }
        if let gop, !Self.gops.contains(gop) { throw ValidationError("--gop must be \(Self.gops.spoken) frames") }
        if let preset, PlatformPreset.named(preset) == nil {
            throw ValidationError("--preset \(preset): name a platform (\(PlatformPreset.names.joined(separator: ", ")))")
        }
    }

    func platform() throws -> PlatformPreset? { preset.flatMap(PlatformPreset.named) }

    /// The encode's settings: a platform's, or the flags', with x264's zerolatency tuning.
    func clipOptions(platform: PlatformPreset?) -> ClipOptions {
        var clip = platform?.clipOptions(path: "", crf: crf, x264Preset: x264Preset) ?? ClipOptions(path: "")
        if let crf { clip.crf = crf }
        clip.preset = x264Preset
        clip.tune = "zerolatency"
        if let bitrate { clip.maxBitRate = bitrate.bitsPerSecond }
        if let gop { clip.gopFrames = gop }
        return clip
    }
}

/// `--bitrate 4500k`, `6M`, or bits a second.
struct BitRate: ExpressibleByArgument {
    var bitsPerSecond: Int

    init?(argument: String) {
        let text = argument.lowercased()
        let scale = text.hasSuffix("k") ? 1_000.0 : text.hasSuffix("m") ? 1_000_000.0 : 1
        guard let number = Double(scale == 1 ? text : String(text.dropLast())), number * scale >= 10_000, number * scale <= 1e9 else {
            return nil
        }
        bitsPerSecond = Int(number * scale)
    }

    static var defaultValueDescription: String { "rate" }
}
