import ArgumentParser
import Compositor
import Foundation
import StoryPlayer

/// `render`'s usage errors, caught before the storyboard is read so that each comes with
/// render's usage; checked in this order, the first one found said.
extension Render {
    func validate() throws {
        // An empty or negative range is a usage error of `render` itself.
        if let problem = frames?.problem { throw ValidationError(problem) }
        if let problem = size?.problem { throw ValidationError(problem) }
        try validateOutputNames()
        if let threads, !RenderOptions.threadCounts.contains(threads) {
            throw ValidationError("--threads must be \(RenderOptions.threadCounts.spoken)")
        }
        try validateLoudness()
        try validateCompanions()
        try validateEncoding()
        try validateAnimation()
        guard (1...50).contains(sheetColumns) else { throw ValidationError("--sheet-columns must be 1 to 50") }
        guard (1...1000).contains(sheetFrames) else { throw ValidationError("--sheet-frames must be 1 to 1000") }
        try validateComparison()
    }

    /// `--compare-to` compares frames, so it needs them all; its thresholds need it.
    private func validateComparison() throws {
        guard let compareTo else {
            if comparison.isGiven { throw ValidationError("--min-ssim, --min-psnr, --max-changed-frames, --region and --ignore-trace-field go with --compare-to (or compare)") }
            return
        }
        if noPng { throw ValidationError("--compare-to compares PNG frames: not with --no-png") }
        if frames != nil { throw ValidationError("--compare-to compares a whole render: not with --frames") }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: compareTo, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError("--compare-to \(compareTo): no such folder (a golden render's frames)")
        }
    }

    /// Each picture and clip named with the extension of what it holds.
    private func validateOutputNames() throws {
        if let contactSheet { try requirePNGName("--contact-sheet", contactSheet) }
        if let timeline { try requirePNGName("--timeline", timeline) }
        for (flag, path, format) in exportFiles {
            if !format.accepts(pathExtension: (path as NSString).pathExtension.lowercased()) {
                let article = ["MP4", "APNG"].contains(format.kind) ? "an" : "a"
                let also = format.accepts(pathExtension: "mov") ? " (or .mov, for QuickTime)" : ""
                throw ValidationError("\(flag) \(path): the clip is \(article) \(format.kind) file; give its name the "
                                      + ".\(format.fileExtension) extension" + also)
            }
        }
    }

    private func validateLoudness() throws {
        guard let loudness else { return }
        guard LoudnessTarget(argument: loudness) != nil else {
            throw ValidationError("--loudness \(loudness): give \(LoudnessTarget.spoken)")
        }
        if mp4 == nil { throw ValidationError("--loudness needs --mp4: it sets the loudness of the MP4's sound") }
        if frames != nil {
            throw ValidationError("--loudness cannot be used with --frames: loudness is measured over the whole clip, "
                                  + "and a shard holds only part of it")
        }
    }

    /// Options that mean something only with another one.
    private func validateCompanions() throws {
        if burnGuides && safeZones == nil && preset.flatMap(PlatformPreset.named)?.safeZones == nil {
            throw ValidationError("--burn-guides needs --safe-zones NAME (or --preset reels, stories or tiktok): which platform's guides to draw")
        }
        if noPng && exportFiles.isEmpty && contactSheet == nil && timeline == nil {
            throw ValidationError("--no-png needs --mp4, --webm, --mov, --gif, --webp, --apng, --contact-sheet or --timeline: "
                                  + "otherwise nothing but the trace would be written")
        }
        if codec != nil && mp4 == nil { throw ValidationError("--codec is the --mp4's codec: give --mp4 too") }
        if webmCodec != nil && webm == nil { throw ValidationError("--webm-codec is the --webm's codec: give --webm too") }
        if overlayOnly && background.color != nil {
            throw ValidationError("--overlay-only draws nothing behind the stories: not with --background")
        }
        if overlayOnly, let opaque = exportFiles.first(where: { !$0.format.carriesAlpha }) {
            throw ValidationError("--overlay-only draws over transparency, which \(opaque.flag) cannot keep (\(opaque.format.name) has no alpha): "
                                  + "write the PNG frames, --mov (ProRes 4444) or --webm (VP9)")
        }
        if keepsAlpha && webm != nil && webmCodec == .av1 {
            let flag = png.alpha ? "--alpha" : "--overlay-only"
            throw ValidationError("\(flag) keeps the frames' alpha in a VP9 WebM only: this FFmpeg's AV1 encoder has no alpha (drop --webm-codec av1)")
        }
    }

    /// The videos' quality, speed and platform preset.
    private func validateEncoding() throws {
        if let crf {
            for (_, _, format) in exportFiles where format.usesCRF && !format.crfRange.contains(crf) {
                throw ValidationError("--crf must be \(format.crfRange.lowerBound) to \(format.crfRange.upperBound) for \(format.name)")
            }
        }
        guard ClipOptions.presets.contains(x264Preset) else {
            throw ValidationError("--x264-preset must be one of \(ClipOptions.presets.joined(separator: ", "))")
        }
        guard let preset else { return }
        if let platform = PlatformPreset.named(preset) {
            guard mp4 != nil else { throw ValidationError("--preset \(preset) sets the --mp4's encoding: give --mp4 FILE.mp4") }
            if codec == .hevc && !platform.acceptsHEVC {
                throw ValidationError("--preset \(preset) is H.264: \(preset) takes no HEVC (--codec hevc works with "
                                      + PlatformPreset.all.filter(\.acceptsHEVC).map(\.name).joined(separator: " and ") + ")")
            }
            let fixed = "\(platform.width)x\(platform.height) at \(Int(platform.fps)) fps"
            if size != nil { throw ValidationError("--preset \(preset) sets the size (\(fixed)): give --preset or --size, not both") }
            if overrides.fps != nil { throw ValidationError("--preset \(preset) sets the frame rate (\(fixed)): give --preset or --fps, not both") }
        } else if !ClipOptions.presets.contains(preset) {
            throw ValidationError("--preset must be one of \(PlatformPreset.names.joined(separator: ", ")) (x264's speed presets are --x264-preset)")
        }
    }

    /// The animations' (GIF, WebP, APNG) width and rate.
    private func validateAnimation() throws {
        guard ClipOptions.animationWidths.contains(animWidth) else {
            throw ValidationError("--anim-width must be \(ClipOptions.animationWidths.lowerBound) to \(ClipOptions.animationWidths.upperBound)")
        }
        guard ClipOptions.animationRates.contains(animFps) else {
            throw ValidationError("--anim-fps must be \(ClipOptions.animationRates.spoken)")
        }
        // A GIF's delays are whole hundredths of a second, and browsers show a delay under 2
        // (at 60 fps every third frame gets 1) as 10: an audit's 4 s GIF at 60 played 11 s.
        if gif != nil, animFps > 50 {
            throw ValidationError("--anim-fps \(JSONText.number(animFps)) is too fast for --gif: a GIF's frame delays are whole hundredths "
                                  + "of a second, and browsers slow delays under 0.02 s to 0.1 s; give 50 or less (25 or 50 keep every delay equal)")
        }
    }
}
