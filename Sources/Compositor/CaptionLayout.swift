/// Where captions go and how big they are, on a canvas of a given size: white text on a dark
/// box, bottom-centred, with the box's lower edge on the safe area's bottom line.
///
/// Without a platform the box keeps to the margins of `stories` (20 % above the bottom, 6 % in
/// from each side): the bottom fifth is where the story viewers of Instagram, Facebook and
/// TikTok all put their own UI (reply bar, caption, sound line) and where a phone draws its home
/// indicator, so text there is hidden on each of them. With one (`--safe-zones`, or a platform `--preset`), it keeps to
/// that platform's margins (reels: above the bottom 35 %; tiktok: left of the right rail). The renderer (`CaptionRenderer`) and
/// `check-layout` both place captions from this value, so the check sees what the render draws.
public struct CaptionLayout: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let platform: PlatformSafeZones?

    /// The margins without a platform (the reasons are above).
    public static let defaultMargins = PlatformSafeZones.stories.margins
    /// The text's size as a fraction of the canvas height: 46 px at 1280 high, as large as the
    /// platforms' own caption text (about 3.5 % of the height).
    public static let fontSizeFraction = 0.036
    /// The gap between the safe area's edges and the box, as a fraction of the width.
    public static let sidePadding = 0.04

    public init(width: Int, height: Int, platform: PlatformSafeZones? = nil) {
        self.width = width
        self.height = height
        self.platform = platform
    }

    /// The text size in pixels.
    public var fontSize: Double { max(8, Double(height) * CaptionLayout.fontSizeFraction) }
    /// How far the dark box reaches around the text, in pixels.
    public var boxPadding: Double { (fontSize * 0.3).rounded() }
    /// One line's height in pixels (DejaVu Sans's ascent and descent at `fontSize`).
    public var lineHeight: Double { fontSize * 1.17 }

    /// What the captions keep clear: the platform's margins, or the default ones.
    public var margins: PlatformSafeZones.Margins { platform?.margins ?? CaptionLayout.defaultMargins }

    /// From the canvas's bottom edge to the box's lower edge, in pixels.
    public var bottomMargin: Double { margins.bottom * Double(height) }
    /// From each side to where the text may begin, in pixels (the box reaches `boxPadding` beyond).
    public var leftMargin: Double {
        (margins.left + CaptionLayout.sidePadding) * Double(width) + boxPadding
    }
    public var rightMargin: Double {
        (margins.right + CaptionLayout.sidePadding) * Double(width) + boxPadding
    }

    /// A caption's box as fractions of the canvas, from the top left.
    public typealias Box = (x: ClosedRange<Double>, y: ClosedRange<Double>)

    /// The box of a caption of `lines` lines, as fractions of the canvas: centred, its lower edge
    /// on `bottomMargin`. Its width is the widest a caption may be (narrower text has a narrower
    /// box, inside this one). An estimate: `CaptionRenderer` measures the box libass draws, after
    /// wrapping, where it can.
    public func box(lines: Int) -> Box {
        let bottom = Double(height) - bottomMargin
        let top = bottom - Double(max(lines, 1)) * lineHeight - 2 * boxPadding
        let left = leftMargin - boxPadding, right = Double(width) - rightMargin + boxPadding
        return (x: (left / Double(width))...(right / Double(width)),
                y: (max(top, 0) / Double(height))...(bottom / Double(height)))
    }
}
