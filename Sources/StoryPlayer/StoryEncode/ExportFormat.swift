import Foundation
internal import CFFmpeg
import StoryMedia

/// The files a render can encode its frames into, each through libavcodec (and, for the
/// animations, libavfilter): the container, the encoder, and what the format can hold.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// `--mp4`: H.264 (libx264) and AAC.
    case mp4H264 = "mp4-h264"
    /// `--mp4 --codec hevc`: HEVC (libx265, tagged `hvc1` so Apple's players take it) and AAC.
    case mp4HEVC = "mp4-hevc"
    /// `--webm`: VP9 (libvpx-vp9) and Opus.
    case webmVP9 = "webm-vp9"
    /// `--webm --webm-codec av1`: AV1 (SVT-AV1) and Opus.
    case webmAV1 = "webm-av1"
    /// `--mov`: ProRes (FFmpeg's prores_ks, tagged as Apple's) and 32-bit float PCM in QuickTime:
    /// 422 HQ, or 4444 with its alpha with `--alpha`, for an editor to composite.
    case movProRes = "mov-prores"
    /// `--gif`: a palette made from the frames (`palettegen`, `paletteuse`).
    case gif
    /// `--webp`: animated WebP (libwebp's animation encoder).
    case webp
    /// `--apng`: animated PNG.
    case apng

    // MARK: - What the format is

    /// What messages call the format, with its codec.
    public var name: String {
        switch self {
        case .mp4H264: "MP4 (H.264)"
        case .mp4HEVC: "MP4 (HEVC)"
        case .webmVP9: "WebM (VP9)"
        case .webmAV1: "WebM (AV1)"
        case .movProRes: "QuickTime (ProRes)"
        case .gif: "GIF"
        case .webp: "animated WebP"
        case .apng: "APNG"
        }
    }

    /// What messages call the file: "the MP4", "the WebM", "the GIF".
    public var kind: String {
        switch self {
        case .mp4H264, .mp4HEVC: "MP4"
        case .webmVP9, .webmAV1: "WebM"
        case .movProRes: "MOV"
        case .gif: "GIF"
        case .webp: "WebP"
        case .apng: "APNG"
        }
    }

    /// The flag that asks for it, for messages.
    public var flag: String {
        switch self {
        case .mp4H264, .mp4HEVC: "--mp4"
        case .webmVP9, .webmAV1: "--webm"
        case .movProRes: "--mov"
        case .gif: "--gif"
        case .webp: "--webp"
        case .apng: "--apng"
        }
    }

    /// The file name's extension the flag asks for.
    public var fileExtension: String {
        switch self {
        case .mp4H264, .mp4HEVC: "mp4"
        case .webmVP9, .webmAV1: "webm"
        case .movProRes: "mov"
        case .gif: "gif"
        case .webp: "webp"
        case .apng: "apng"
        }
    }

    /// An animation: no sound, drawn at its own (smaller) size and rate through a filter graph.
    public var isAnimation: Bool {
        switch self {
        case .gif, .webp, .apng: true
        default: false
        }
    }

    /// Whether the clips of a render's shards (`--frames`) can be joined into the whole without
    /// re-encoding: MP4 and WebM, whose closed GOPs each shard starts on a keyframe. A GIF's
    /// palette is made from all of its frames, and an animated WebP or APNG is one animation
    /// with one header: neither can be cut at a shard's edge.
    public var joinsFromShards: Bool { !isAnimation }

    /// The crf the encoder gets when none is asked for: each codec's own scale. x264's 20 is
    /// the render's long-standing default; x265's 24, VP9's 32 and SVT-AV1's 35 give about the
    /// same picture at their scales (FFmpeg's encoding guides: x265 28 ≈ x264 23, VP9 31-ish
    /// for 1080p, SVT-AV1 35 as its default).
    public var defaultCRF: Int {
        switch self {
        case .mp4H264: 20
        case .mp4HEVC: 24
        case .webmVP9: 32
        case .webmAV1: 35
        case .movProRes, .gif, .webp, .apng: 0
        }
    }

    /// Whether `--crf` sets its quality: ProRes has none (its profile decides), nor do the animations.
    public var usesCRF: Bool { !isAnimation && self != .movProRes }

    /// Whether it can keep the frames' alpha (`--alpha`): VP9 in WebM (yuva420p) and ProRes
    /// 4444 in QuickTime.
    public var carriesAlpha: Bool { self == .webmVP9 || self == .movProRes }

    /// The crf when none is asked for, with the frames' alpha kept or not. FFmpeg's libvpx
    /// wrapper codes VP9's alpha plane at its colour's crf, and only crf 0 keeps the alpha
    /// within a level of the frames' (a cube turn's edges, measured: crf 10 is 13 levels off,
    /// 32 is 39): an alpha WebM is for compositing, so it is near-lossless unless `--crf` says.
    public func defaultCRF(keepingAlpha: Bool) -> Int { keepingAlpha && self == .webmVP9 ? 0 : defaultCRF }

    /// The range of `--crf` for the codec.
    public var crfRange: ClosedRange<Int> {
        switch self {
        case .mp4H264, .mp4HEVC: 0...51
        case .webmVP9: 0...63
        case .webmAV1: 1...63
        case .movProRes, .gif, .webp, .apng: 0...0
        }
    }

    // MARK: - How it is made (libavformat, libavcodec)

    /// Whether a file named with `pathExtension` (lower case) holds this format: its own
    /// extension, and `.mov` for the MP4 formats (QuickTime, as a phone's editor names its clips).
    public func accepts(pathExtension: String) -> Bool {
        pathExtension == fileExtension || (muxer == "mp4" && pathExtension == "mov") || (self == .movProRes && pathExtension == "qt")
    }

    /// The muxer for a file at `path`: QuickTime's (`mov`) for an MP4 format named `.mov`
    /// (the same H.264 or HEVC and AAC, in the container Final Cut and QuickTime Player expect).
    func muxer(for path: String) -> String {
        muxer == "mp4" && (path as NSString).pathExtension.lowercased() == "mov" ? "mov" : muxer
    }

    /// The muxer (`avformat_alloc_output_context2`'s format name).
    var muxer: String {
        switch self {
        case .mp4H264, .mp4HEVC: "mp4"
        case .webmVP9, .webmAV1: "webm"
        case .movProRes: "mov"
        case .gif: "gif"
        case .webp: "webp"
        case .apng: "apng"
        }
    }

    /// The video encoder's name in libavcodec.
    var videoEncoder: String {
        switch self {
        case .mp4H264: "libx264"
        case .mp4HEVC: "libx265"
        case .webmVP9: "libvpx-vp9"
        case .webmAV1: "libsvtav1"
        case .movProRes: "prores_ks"
        case .gif: "gif"
        case .webp: "libwebp_anim"
        case .apng: "apng"
        }
    }

    /// The sound encoder, for the formats that carry sound.
    var audioEncoder: String? {
        switch self {
        case .mp4H264, .mp4HEVC: "aac"
        case .webmVP9, .webmAV1: "libopus"
        case .movProRes: "pcm_f32le"
        case .gif, .webp, .apng: nil
        }
    }

    /// The pixel format the encoder takes: 4:2:0 for the videos (what every player decodes);
    /// the palette `paletteuse` gives for the GIF; 4:2:0 for WebP's lossy frames; RGB for the
    /// APNG (the frames given to sinks are opaque).
    var pixelFormat: AVPixelFormat {
        switch self {
        case .mp4H264, .mp4HEVC, .webmVP9, .webmAV1, .webp: AV_PIX_FMT_YUV420P
        case .movProRes: AV_PIX_FMT_YUV422P10LE
        case .gif: AV_PIX_FMT_PAL8
        case .apng: AV_PIX_FMT_RGB24
        }
    }

    /// The pixel format with the frames' alpha kept (`carriesAlpha`): VP9's 4:2:0 with an alpha
    /// plane, ProRes 4444's 10-bit 4:4:4 with one.
    func pixelFormat(keepingAlpha: Bool) -> AVPixelFormat {
        guard keepingAlpha else { return pixelFormat }
        switch self {
        case .webmVP9: return AV_PIX_FMT_YUVA420P
        case .movProRes: return AV_PIX_FMT_YUVA444P10LE
        default: preconditionFailure("\(name) carries no alpha")
        }
    }

    /// The muxer's options for `avformat_write_header`. The animations loop for ever, as a
    /// story's GIF is shown (GIF's muxer does by default; WebP's and APNG's play once unless told).
    var muxerOptions: [String: String] {
        switch self {
        case .mp4H264, .mp4HEVC: ["movflags": "+faststart"]
        case .webmVP9, .webmAV1, .gif: [:]
        case .movProRes: ["movflags": "+faststart"]
        case .webp: ["loop": "0"]
        case .apng: ["plays": "0"]
        }
    }
}
