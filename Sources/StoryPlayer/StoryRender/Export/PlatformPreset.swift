import Compositor
import StoryEncode
import StoryMedia

/// A platform's published limits for an uploaded vertical video (`--preset`), what a render
/// with the preset makes, and what `check-preset` holds any file to.
///
/// The figures, one table below, and where each comes from (read in 2025; platforms change
/// them, so each figure is kept next to its source):
/// - **reels** and **stories**: Meta's Instagram Graph API, `POST /{ig-user-id}/media`, video
///   specifications for `REELS` and `STORIES`: MOV or MP4; H.264 or HEVC, progressive, closed
///   GOP, 4:2:0; 23 to 60 fps; at most 1920 columns; VBR at most 25 Mbit/s; AAC at most 48 kHz,
///   1 or 2 channels, 128 kbit/s; Reels 3 s to 15 min and at most 1 GB, Stories 3 s to 60 s
///   and at most 100 MB. 1080x1920 at 30 fps and H.264 High are Meta's recommended upload
///   (Reels ads specs, Meta Business Help Center).
/// - **tiktok**: TikTok's upload guidance (TikTok Help Center and Ads Manager specs): 1080x1920
///   recommended, MP4 or MOV, H.264, AAC, 30 or 60 fps, up to 10 minutes, at most 287.6 MB
///   from the iOS app. TikTok publishes no bit-rate cap, so none is checked; the render caps
///   at Meta's 25 Mbit/s so that one file suits both.
/// - **shorts**: YouTube Help, "Recommended upload encoding settings" (answer 1722171): MP4
///   with `+faststart`; H.264 High, progressive, 2 consecutive B frames, closed GOP of half the
///   frame rate, VBR, 4:2:0; 1080p SDR at 24-30 fps: 8 Mbit/s (a recommendation: YouTube sets
///   no limit, and `check-preset` holds a file to it as the preset's cap); AAC-LC stereo at
///   48 or 96 kHz, 384 kbit/s; and "Upload YouTube Shorts": vertical or square, up to 3 minutes.
public struct PlatformPreset: Sendable, Equatable {
    public let name: String
    /// The canvas a render with the preset draws, and the size `check-preset` asks for.
    public let width: Int
    public let height: Int
    /// The render's frame rate, and the lowest and highest a checked file may have.
    public let fps: Double
    public let minFPS: Double
    public let maxFPS: Double
    /// The video codecs accepted (ffprobe's names; the render writes the first, H.264), and the
    /// H.264 profiles accepted (the first is what the render asks x264 for).
    public let videoCodecs: [String]
    public let profiles: [String]
    /// Frames from keyframe to keyframe in the render (and at most that in a checked file, when
    /// the platform publishes it: `checksGOP`).
    public let gopFrames: Int
    public let checksGOP: Bool
    /// The video's bit-rate cap (VBR), bits per second; nil: none published.
    public let maxVideoBitRate: Int?
    /// The sound: AAC at these rates (Hz), at most this many channels, encoded at `audioBitRate`.
    public let audioSampleRates: [Int]
    public let maxAudioChannels: Int
    public let audioBitRate: Int
    /// The duration a file may have, seconds.
    public let minDuration: Double
    public let maxDuration: Double
    /// The largest file, bytes; nil: none published that a render could reach.
    public let maxFileBytes: Int?

    // MARK: - The table

    public static let reels = PlatformPreset(
        name: "reels", width: 1080, height: 1920, fps: 30, minFPS: 23, maxFPS: 60, videoCodecs: ["h264", "hevc"], profiles: ["High"], gopFrames: 30, checksGOP: false,
        maxVideoBitRate: 25_000_000, audioSampleRates: [48_000, 44_100, 32_000], maxAudioChannels: 2, audioBitRate: 128_000,
        minDuration: 3, maxDuration: 15 * 60, maxFileBytes: 1_000_000_000)

    public static let stories = PlatformPreset(
        name: "stories", width: 1080, height: 1920, fps: 30, minFPS: 23, maxFPS: 60, videoCodecs: ["h264", "hevc"], profiles: ["High"], gopFrames: 30, checksGOP: false,
        maxVideoBitRate: 25_000_000, audioSampleRates: [48_000, 44_100, 32_000], maxAudioChannels: 2, audioBitRate: 128_000,
        minDuration: 3, maxDuration: 60, maxFileBytes: 100_000_000)

    public static let tiktok = PlatformPreset(
        name: "tiktok", width: 1080, height: 1920, fps: 30, minFPS: 23, maxFPS: 60, videoCodecs: ["h264"], profiles: ["High", "Main", "Constrained Baseline", "Baseline"],
        gopFrames: 30, checksGOP: false, maxVideoBitRate: nil, audioSampleRates: [48_000, 44_100], maxAudioChannels: 2,
        audioBitRate: 128_000, minDuration: 0, maxDuration: 10 * 60, maxFileBytes: 287_600_000)

    public static let shorts = PlatformPreset(
        name: "shorts", width: 1080, height: 1920, fps: 30, minFPS: 1, maxFPS: 60, videoCodecs: ["h264"], profiles: ["High"], gopFrames: 15, checksGOP: true,
        maxVideoBitRate: 8_000_000, audioSampleRates: [48_000, 96_000], maxAudioChannels: 2, audioBitRate: 384_000,
        minDuration: 0, maxDuration: 3 * 60, maxFileBytes: nil)

    public static let all = [reels, stories, tiktok, shorts]

    /// The preset called `name` (`reels`, `stories`, `tiktok`, `shorts`).
    public static func named(_ name: String) -> PlatformPreset? { all.first { $0.name == name } }
    public static var names: [String] { all.map(\.name) }

    /// The UI zones the platform covers (`PlatformSafeZones`): a render with the preset places
    /// captions inside its safe area and warns of text in them. nil for shorts: YouTube
    /// publishes no safe zones for Shorts, so its captions keep to the default margins (20 %
    /// above the bottom, 6 % in at the sides) and nothing is checked.
    public var safeZones: PlatformSafeZones? { PlatformSafeZones(rawValue: name) }

    // MARK: - What a render with it makes

    /// Whether the platform takes HEVC (`--codec hevc` with the preset).
    public var acceptsHEVC: Bool { videoCodecs.contains("hevc") }

    /// The MP4's settings: H.264 with the first profile accepted (or, with `hevc` where the
    /// platform takes it, HEVC Main), closed GOPs of `gopFrames`, capped VBR (crf under the
    /// cap), AAC at 48 kHz at the preset's bit rate. `crf` nil: the codec's default.
    public func clipOptions(path: String, crf: Int? = nil, x264Preset: String = ClipOptions.defaultPreset,
                            hevc: Bool = false) -> ClipOptions {
        precondition(!hevc || acceptsHEVC, "\(name) takes H.264 only")
        var options = ClipOptions(path: path, format: hevc ? .mp4HEVC : .mp4H264)
        if let crf { options.crf = crf }
        options.preset = x264Preset
        // The profiles listed are H.264's; x265 makes Main (8-bit 4:2:0) unasked.
        options.profile = hevc ? nil : profiles.first?.lowercased()
        options.gopFrames = gopFrames
        options.maxBitRate = maxVideoBitRate ?? PlatformPreset.reels.maxVideoBitRate
        options.audioBitRate = audioBitRate
        return options
    }
}
