internal import CFFmpeg
import StoryMedia

// MARK: - Each format's encoder and filters

extension ClipWriter {
    /// A video's encoder settings for `options.format`: rate control (crf, and a VBR cap with a
    /// buffer of two seconds at the cap), closed GOPs of `gopFrames` (one second by default, so
    /// shards' clips join at keyframes) and the codec's own speed settings.
    static func applyVideoCodec(_ options: ClipOptions, fps: Double, to settings: inout EncoderSettings) {
        let gop = Int32(options.gopFrames ?? max(1, Int(fps.rounded())))
        settings.gopSize = gop
        settings.minGOPSize = gop
        // The encoder's own threads, as many as it finds useful (the ffmpeg CLI's `-threads auto`).
        settings.threads = 0
        if let cap = options.maxBitRate {
            settings.maxBitRate = Int64(cap)
            settings.bufferSize = Int32(clamping: cap * 2)
        }
        switch options.format {
        case .mp4H264:
            // No B-frames for a recording's zerolatency: a picture is sent as soon as it is drawn.
            let zeroLatency = options.tune == "zerolatency"
            settings.maxBFrames = zeroLatency ? 0 : 2
            // Closed GOPs: segments joined without re-encoding start on a keyframe.
            var x264 = "keyint=\(gop):min-keyint=\(gop):scenecut=0:open-gop=0"
            // x264 signals the profile its tools need, not the one asked for: ultrafast's (no
            // CABAC, no 8x8 transform, no B-frames) would make a Main or Baseline stream. High
            // asks for those tools (and YouTube's two B-frames) explicitly.
            if options.profile == "high" { x264 += ":cabac=1:8x8dct=1" + (zeroLatency ? "" : ":bframes=2") }
            settings.privateOptions = [("crf", String(options.crf)), ("preset", options.preset), ("x264-params", x264)]
            if let profile = options.profile { settings.privateOptions.append(("profile", profile)) }
            if let tune = options.tune { settings.privateOptions.append(("tune", tune)) }
        case .mp4HEVC:
            settings.privateOptions = [
                ("crf", String(options.crf)), ("preset", options.preset),
                // x265 prints its settings to stderr itself unless told not to.
                ("x265-params", "keyint=\(gop):min-keyint=\(gop):scenecut=0:open-gop=0:bframes=2:log-level=error"),
            ]
        case .webmVP9:
            // Constant quality (crf with no target bit rate), unless capped; `good` at speed 5 with
            // row threads: libvpx's own advice for fast file encodes.
            settings.bitRate = Int64(options.maxBitRate ?? 0)
            settings.privateOptions = [
                ("crf", String(options.crf)), ("deadline", "good"), ("cpu-used", "5"), ("row-mt", "1"),
            ]
        case .webmAV1:
            // SVT-AV1's preset 10: fast enough for a render of stories; keyframes only at the GOP's
            // edges, so each GOP is closed.
            settings.privateOptions = [("crf", String(options.crf)), ("preset", "10"), ("svtav1-params", "scd=0")]
        case .movProRes:
            // Apple's vendor tag, so Final Cut and QuickTime take it as their own; 4444 with its
            // alpha at 16 bits when the clip keeps the frames' alpha, else 422 HQ.
            settings.privateOptions = [("profile", options.keepsAlpha ? "4444" : "hq"), ("vendor", "apl0")]
            if options.keepsAlpha { settings.privateOptions.append(("alpha_bits", "16")) }
        case .gif, .webp, .apng:
            preconditionFailure("an animation's encoder is set up from its filter graph")
        }
    }

    /// An animation's filters, from the canvas (RGBA at the render's rate) to what its encoder
    /// takes: the rate (`fps`), the size (`scale`, Lanczos: a reduction by 2 or more keeps text
    /// legible), then
    /// - GIF: a palette of the frames' colours (`palettegen` with `stats_mode=diff`: colours
    ///   counted where pictures change, so a moving story is not starved by a still backdrop)
    ///   used with `sierra2_4a` dithering (error diffusion: the lowest error against the frames
    ///   of the ditherings `paletteuse` has, and FFmpeg's default; `bayer` compresses better
    ///   but shows its grid on a story's gradients), re-dithered only in the rectangle that
    ///   changed (`diff_mode=rectangle`), so still parts do not shimmer;
    /// - WebP: 4:2:0 (libwebp's lossy frames);
    /// - APNG: RGB.
    /// The palette is known only once every frame has been counted, so a GIF's frames wait in
    /// the graph (its size × 4 bytes each) until the end.
    static func animationFilters(_ format: ExportFormat, width: Int, height: Int, fps: Double) -> String {
        let common = "fps=\(fps),scale=\(width):\(height):flags=lanczos"
        switch format {
        case .gif:
            return common + ",split[frames][counted];[counted]palettegen=stats_mode=diff[palette];"
                + "[frames][palette]paletteuse=dither=sierra2_4a:diff_mode=rectangle"
        case .webp: return common + ",format=yuv420p"
        case .apng: return common + ",format=rgb24"
        default: preconditionFailure("\(format) is not an animation")
        }
    }
}
