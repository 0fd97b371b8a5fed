import Compositor

// MARK: - Text inside a platform's UI zones (`check-layout`)

/// Text the viewer draws that a platform's own UI would cover: one element, one zone.
public struct LayoutWarning: Sendable, Equatable, CustomStringConvertible {
    /// The JSON path of what puts the text there, e.g. `stories[0].items[1].captions`.
    public let path: String
    public let message: String

    public var description: String { "\(path): \(message)" }
}

extension Storyboard {
    /// Where the text of this storyboard's frames falls against `platform`'s zones
    /// (`PlatformSafeZones`): one warning for each element inside a zone.
    ///
    /// The elements with text are the captions (each `captions` key, its box as `captionBox`
    /// measures the file's cues placed by `CaptionLayout`: for `captionsPlacedFor` when a render
    /// gives `--safe-zones` or a platform `--preset`, else at the default margin; two lines high
    /// when the file cannot be read; none for a file that is not there, which draws nothing, or
    /// whose cues draw nothing). `StoryMedia` gives the measure of the boxes libass draws, after
    /// wrapping (`layoutWarnings(for:captionsPlacedFor:)`). The overlay draws no text (its
    /// progress segments sit where every platform draws its own), and the storyboard has no
    /// call-to-action element, so neither is checked.
    ///
    /// Text and sticker layers are checked where they come to rest (`layerSize` measures each,
    /// as it is drawn; without it, none is checked).
    public func layoutWarnings(for platform: PlatformSafeZones, captionsPlacedFor placement: PlatformSafeZones? = nil,
                               captionBox: (CaptionTrack, CaptionLayout) -> CaptionLayout.Box?,
                               layerSize: ((StoryLayer) -> (width: Double, height: Double)?)? = nil) -> [LayoutWarning] {
        let layout = CaptionLayout(width: canvas.width, height: canvas.height, platform: placement)
        let tracks = loadCaptions().tracks
        // A file that is not there draws nothing (the render warns of it, as of missing media),
        // so it puts no text in a zone either.
        let missing = Set(missingLocalFiles.map(\.file))
        var warnings: [LayoutWarning] = []
        for source in captionSources where !missing.contains(source.file) {
            // A file that cannot be read is a storyboard error for the CLI; a library caller's is
            // taken as two lines.
            let measured: CaptionLayout.Box? = if let track = tracks[source] { captionBox(track, layout) } else { layout.box(lines: 2) }
            guard let box = measured else { continue }
            for zone in platform.zones where zone.overlaps(x: box.x, y: box.y) {
                let sideways = zone.x != 0...1
                let extent = (sideways ? "x \(Storyboard.percentRange(box.x)), " : "") + "y \(Storyboard.percentRange(box.y))"
                warnings.append(LayoutWarning(path: source.path,
                                              message: "the caption box (\(extent)) falls in \(platform.possessive) \(zone.name)"))
            }
        }
        if let layerSize { warnings += layerWarnings(for: platform, size: layerSize) }
        return warnings
    }

    /// "70–80 %".
    static func percentRange(_ range: ClosedRange<Double>) -> String {
        "\(Int((range.lowerBound * 100).rounded()))–\(Int((range.upperBound * 100).rounded())) %"
    }
}

extension PlatformSafeZones {
    /// "reels'", "tiktok's": how a message says the zone is the platform's.
    public var possessive: String { rawValue.hasSuffix("s") ? "\(rawValue)'" : "\(rawValue)'s" }
}
