import Compositor
import StoryPlayer

/// The page: one self-contained HTML file (`Page/studio.html`, embedded in the binary), with
/// the report page's lifecycle lanes script put in, so the lanes look and behave as the
/// report's do, and the platforms' safe zones from the one table (`PlatformSafeZones`).
enum StudioPage {
    static let placeholder = "/*LANES_SCRIPT*/"
    static let zonesPlaceholder = "/*SAFE_ZONES*/"

    static let html: String = {
        let page = String(decoding: PackageResources.studio_html, as: UTF8.self)
        return page.replacingOccurrences(of: placeholder, with: ReportPage.lanesScriptForStudio)
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
