import Compositor
import StoryMedia
import StoryModel

// MARK: - Text in the platform's UI (`--preset`)

extension StoryRenderer {
    /// A render for a platform (`RenderOptions.platform`, with safe zones) says, as notices,
    /// what `check-layout --platform` would of its frames: each caption's box (as libass draws
    /// it, after wrapping) inside one of the platform's zones. An explicit `--safe-zones` for
    /// another platform wins over the preset's placement, and is said first. Nothing for a
    /// render without a platform, or for one whose platform has no zones (shorts).
    func layoutNotices() -> [String] {
        guard let platform = options.platform, let zones = platform.safeZones else { return [] }
        var notices: [String] = []
        if let chosen = options.safeZones, chosen != zones {
            notices.append("--safe-zones \(chosen.rawValue) wins over --preset \(platform.name): the captions are placed in "
                           + "\(chosen.possessive) safe area, not \(zones.possessive)")
        }
        let warnings = storyboard.layoutWarnings(for: zones, captionsPlacedFor: options.captionZones)
        return notices + warnings.map(\.description)
    }
}
