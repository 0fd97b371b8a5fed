import ArgumentParser
import Compositor
import StoryPlayer

/// What counts as a difference: `compare`'s thresholds, which `render --compare-to` takes too.
struct ComparisonArguments: ParsableArguments {
    @Option(name: .customLong("min-ssim"), help: ArgumentHelp("A pair of frames below this SSIM (0-1) is changed.", valueName: "ssim"))
    var minSSIM: Double?

    @Option(name: .customLong("min-psnr"), help: ArgumentHelp("A pair of frames below this PSNR (dB) is changed.", valueName: "dB"))
    var minPSNR: Double?

    @Option(help: ArgumentHelp("How many changed, inserted and deleted frames still pass (default 0).", valueName: "count"))
    var maxChangedFrames: Int?

    @Option(help: ArgumentHelp("Compare only this rectangle of each frame, in pixels from the top left.",
                               valueName: "x,y,w,h"))
    var region: FrameRegion?

    @Flag(name: .customLong("face"),
          help: "Measure each cube face on its own too, inside the corners the render's frames.jsonl gives (a face below --min-ssim is a change).")
    var faces = false

    @Option(name: .customLong("ignore-trace-field"),
            help: ArgumentHelp("A trace field whose differences do not count (again for each).", valueName: "name"))
    var ignoredTraceFields: [String] = []

    /// Whether any was given (`render` takes them only with --compare-to).
    var isGiven: Bool {
        minSSIM != nil || minPSNR != nil || maxChangedFrames != nil || region != nil || faces || !ignoredTraceFields.isEmpty
    }

    var options: ComparisonOptions {
        ComparisonOptions(minSSIM: minSSIM, minPSNR: minPSNR, maxChangedFrames: maxChangedFrames ?? 0, region: region?.region,
                          faces: faces, ignoredTraceFields: Set(ignoredTraceFields))
    }

    func validate() throws {
        if let minSSIM, !(minSSIM >= 0 && minSSIM <= 1) { throw ValidationError("--min-ssim must be 0-1 (got \(minSSIM))") }
        if let minPSNR, !(minPSNR > 0 && minPSNR.isFinite) { throw ValidationError("--min-psnr must be a number of dB above 0") }
        if let maxChangedFrames, maxChangedFrames < 0 { throw ValidationError("--max-changed-frames must be 0 or more") }
    }
}

/// `--region x,y,w,h`.
struct FrameRegion: ExpressibleByArgument {
    let region: TileRect

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
            .map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
              x >= 0, y >= 0, w >= 2, h >= 2 else { return nil }
        region = TileRect(x: x, y: y, width: w, height: h)
    }

    static var defaultValueDescription: String { "x,y,w,h" }
}
