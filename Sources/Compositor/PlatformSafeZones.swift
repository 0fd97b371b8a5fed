/// The parts of a 9:16 screen a platform covers with its own UI (profile name, caption, buttons,
/// reply bar), which text of a story's own should keep out of. One table, used to draw the
/// guides (`--safe-zones`), to place captions inside the safe area, and by `check-layout`.
///
/// Figures are fractions of the screen, from the platforms' published guidance:
/// - **reels** (Instagram Reels): keep the top 14 %, the bottom 35 % and 6 % at each side clear.
///   Meta Business Help Center, "Safe zones for Reels ads" / Meta Ads Guide, Instagram Reels
///   (9:16, 1080x1920: "leave 14% (270 px) at the top, 35% (670 px) at the bottom and 6% (65 px)
///   at each side free of text and logos").
/// - **stories** (Instagram and Facebook Stories): keep the top 14 % and the bottom 20 % clear,
///   6 % at each side. Meta Ads Guide, Instagram Stories ("about 14% (250 px) at the top and
///   20% (340 px) at the bottom" of 1080x1920, where the profile and the reply bar sit).
/// - **tiktok**: the right rail of buttons (like, comment, share, the sound disc), about 14 % of
///   the width from 30 % to 85 % of the height, the lower 20 % (caption and sound line), and the
///   top 10 % (the Following / For You tabs). TikTok Ads Manager, "Creative safe zones"
///   (1080x1920: right 140 px, bottom 20 % for the caption, top 130–160 px).
/// The contract (32, item 4) is the reels and tiktok wording above; the README lists the
/// figures with these sources.
public enum PlatformSafeZones: String, Sendable, CaseIterable {
    case reels, stories, tiktok

    /// One covered part of the screen: fractions of the width (x) and height (y), from the top left.
    public struct Zone: Sendable, Equatable {
        /// How a message names it: "the bottom 35 %", "the right rail".
        public let name: String
        public let x: ClosedRange<Double>
        public let y: ClosedRange<Double>

        public init(name: String, x: ClosedRange<Double>, y: ClosedRange<Double>) {
            self.name = name
            self.x = x
            self.y = y
        }

        /// Whether the box (fractions) overlaps this zone by more than a hair.
        public func overlaps(x box: ClosedRange<Double>, y boxY: ClosedRange<Double>) -> Bool {
            let slack = 1e-6
            return box.upperBound > x.lowerBound + slack && box.lowerBound < x.upperBound - slack
                && boxY.upperBound > y.lowerBound + slack && boxY.lowerBound < y.upperBound - slack
        }
    }

    /// What the platform keeps clear, in fractions of the screen.
    public struct Margins: Sendable, Equatable {
        public let top: Double, bottom: Double, left: Double, right: Double
    }

    /// The plain margins: the top and bottom bands and each side (for tiktok the rail counts as
    /// its right side, since a caption box spans the rows it covers).
    public var margins: Margins {
        switch self {
        case .reels: Margins(top: 0.14, bottom: 0.35, left: 0.06, right: 0.06)
        case .stories: Margins(top: 0.14, bottom: 0.20, left: 0.06, right: 0.06)
        case .tiktok: Margins(top: 0.10, bottom: 0.20, left: 0, right: 0.14)
        }
    }

    /// The covered parts, each as a rectangle.
    public var zones: [Zone] {
        let m = margins
        var zones = [Zone(name: "top \(Self.percent(m.top))", x: 0...1, y: 0...m.top),
                     Zone(name: "bottom \(Self.percent(m.bottom))", x: 0...1, y: (1 - m.bottom)...1)]
        switch self {
        case .reels, .stories:
            zones += [Zone(name: "left \(Self.percent(m.left))", x: 0...m.left, y: m.top...(1 - m.bottom)),
                      Zone(name: "right \(Self.percent(m.right))", x: (1 - m.right)...1, y: m.top...(1 - m.bottom))]
        case .tiktok:
            zones.append(Zone(name: "right rail", x: (1 - m.right)...1, y: 0.30...0.85))
        }
        return zones
    }

    /// A fraction as a whole percentage: 0.35 → "35 %".
    public static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded())) %" }
}
