import Compositor
import StoryPlayer

/// The page: one self-contained HTML page served whole, put together from `Page/studio.html`
/// (the markup and its style) and its scripts, one file per concern (the frame on screen and
/// its keys; the storyboard, its command and the render's progress; the variant's form and the
/// safe zones; the music heard while it plays), all embedded in the binary. Into it go the report page's lifecycle lanes
/// script, so the lanes look and behave as the report's do, and the platforms' safe zones from
/// the one table (`PlatformSafeZones`).
enum StudioPage {
    static let scriptsPlaceholder = "/*STUDIO_SCRIPTS*/\n"
    static let placeholder = "/*LANES_SCRIPT*/"
    static let zonesPlaceholder = "/*SAFE_ZONES*/"

    static let html: String = {
        let scripts = [PackageResources.studio_frames_js, PackageResources.studio_board_js,
                       PackageResources.studio_form_js, PackageResources.studio_music_js]
            .map { String(decoding: $0, as: UTF8.self) }.joined()
        let page = String(decoding: PackageResources.studio_html, as: UTF8.self)
        return page.replacingOccurrences(of: scriptsPlaceholder, with: scripts)
            .replacingOccurrences(of: placeholder, with: ReportPage.lanesScriptForStudio)
            .replacingOccurrences(of: zonesPlaceholder, with: safeZonesJSON)
    }()

    /// `{"reels": [{"name": "top 14 %", "x": [0, 1], "y": [0, 0.14]}, …], …}`.
    static var safeZonesJSON: String {
        let platforms = PlatformSafeZones.allCases.map { platform in
            let zones = platform.zones.map { zone in
                "{\"name\": \"\(zone.name)\", \"x\": [\(zone.x.lowerBound), \(zone.x.upperBound)], \"y\": [\(zone.y.lowerBound), \(zone.y.upperBound)]}"
            }
            return "\"\(platform.rawValue)\": [\(zones.joined(separator: ", "))]"
        }
        return "{\(platforms.joined(separator: ", "))}"
    }
}
