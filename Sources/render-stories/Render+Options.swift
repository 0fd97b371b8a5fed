import ArgumentParser
import Compositor
import Foundation
import StoryPlayer

/// The render's options, from its flags: each group of flags in a step of its own.
extension Render {
    /// The storyboard at `path`, its canvas as the flags override it. A platform preset draws
    /// the canvas at the platform's size and rate, as --size and --fps would.
    func loadBoard(_ path: String, platform: PlatformPreset?) throws -> Storyboard {
        try Storyboard(contentsOf: path, parameters: parameters.values).overriding(width: platform?.width ?? size?.width,
                                                                                  height: platform?.height ?? size?.height,
                                                                                  fps: platform?.fps ?? overrides.fps, duration: overrides.duration,
                                                                                  background: background.color)
    }

    /// The render's options for `board` into `folder`; exits 1 when a --frames range cannot be
    /// checked, 2 on a usage error found only now.
    func renderOptions(for board: Storyboard, folder: String, platform: PlatformPreset?) throws -> RenderOptions {
        var options = RenderOptions(outputFolder: folder)
        options.png = png.options
        options.png.keepAlpha = keepsAlpha
        options.overlay = !noOverlay
        options.overlayOnly = overlayOnly
        options.safeZones = safeZones
        // Captions keep inside the platform's safe area, and the render says what check-layout would.
        options.platform = platform
        options.burnGuides = burnGuides
        if let threads { options.threads = threads }
        options.clock = clock
        options.contactSheet = contactSheet
        options.sheetColumns = sheetColumns
        options.sheetFrames = sheetFrames
        options.timeline = timeline
        // An interrupted render's report shows what was drawn, and says it was interrupted.
        options.report = report
        if let frames { options.frameRange = try frames.resolved(frames: total(of: board)) }
        options.writeFrames = !noPng
        options.clip = mp4.map { clipOptions(path: $0, platform: platform) }
        options.exports = exportOptions()
        options.loudness = loudness.flatMap(LoudnessTarget.init(argument:))
        do {
            try options.check(for: board)
        } catch {
            // A usage error found in run(), after parsing: argument-parser would print the root
            // command's usage for it, so render's own is printed here, as validate()'s errors get.
            printError("error: \(error.message)\nUsage: \(RenderStories.usageString(for: Render.self))\n"
                       + "  See 'render-stories help render' for more information.")
            throw ExitCode(2)
        }
        return options
    }

    /// The whole render's frame count, which a --frames range is checked against, so a range
    /// past the end is a usage error instead of an empty render that exits 0.
    private func total(of board: Storyboard) throws -> Int {
        do {
            return try StoryRenderer.countFrames(board)
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }

    /// The --mp4's encoding: a platform's, or the codec, quality and speed flags'.
    private func clipOptions(path: String, platform: PlatformPreset?) -> ClipOptions {
        let speed = platform == nil ? (preset ?? x264Preset) : x264Preset
        if let platform { return platform.clipOptions(path: path, crf: crf, x264Preset: speed, hevc: codec == .hevc) }
        var clip = ClipOptions(path: path, format: codec == .hevc ? .mp4HEVC : .mp4H264)
        if let crf { clip.crf = crf }
        clip.preset = speed
        return clip
    }

    /// Whether the outputs keep the frames' alpha: `--alpha`, or `--overlay-only` (whose
    /// frames are mostly transparency).
    var keepsAlpha: Bool { png.alpha || overlayOnly }

    /// The other encoded files asked for (WebM, MOV, GIF, WebP, APNG); those that can keep the
    /// frames' alpha keep it with `--alpha`.
    private func exportOptions() -> [ClipOptions] {
        exportFiles.filter { $0.format.fileExtension != "mp4" }.map { _, path, format in
            var export = ClipOptions(path: path, format: format)
            export.keepsAlpha = keepsAlpha && format.carriesAlpha
            export.crf = crf.flatMap { format.usesCRF ? $0 : nil } ?? format.defaultCRF(keepingAlpha: export.keepsAlpha)
            export.animationWidth = animWidth
            export.animationFPS = animFps
            return export
        }
    }
}
