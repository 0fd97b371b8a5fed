
/// The UI drawn over a story, into its face's texture so that it turns with the cube: progress
/// segments along the top. Sizes come from a 720-wide reference, so every canvas size looks alike.
public enum StoryOverlay {
    /// One segment per item: finished ones full, future ones empty, the current one filled to
    /// `progress`, inside the safe area `inset` (px at 720 wide), over a soft top scrim.
    /// `opacity` fades the whole row.
    public static func drawSegments(on picture: inout RGBAImage, count: Int, current: Int, progress: Double,
                             inset: Double, opacity: Double) {
        guard count > 0, opacity > 0 else { return }
        let bar = SegmentBar(pictureWidth: picture.width, inset: inset)
        let width = (Double(picture.width) - 2 * bar.margin - bar.gap * Double(count - 1)) / Double(count)
        guard width > 0 else { return }
        // A soft dark scrim behind them, as Instagram draws it: white segments vanish on white
        // content without one. It fades out downwards, so the picture below is untouched.
        for row in 0..<Int(bar.scrim.rounded(.up)) where row < picture.height {
            let fade = 1 - Double(row) / bar.scrim
            let alpha = UInt8((0.38 * fade * fade * opacity * 255).rounded())
            guard alpha > 0 else { continue }
            picture.blendRow(row, color: RGBAColor(red: 0, green: 0, blue: 0, alpha: alpha))
        }
        let track = RGBAColor(red: 255, green: 255, blue: 255, alpha: UInt8(90 * opacity))
        let fill = RGBAColor(red: 255, green: 255, blue: 255, alpha: UInt8(240 * opacity))
        for index in 0..<count {
            let x = bar.margin + Double(index) * (width + bar.gap)
            picture.fillRoundedRect(x: x, y: bar.margin, width: width, height: bar.height, radius: bar.height / 2, color: track)
            let filled = index < current ? 1 : index == current ? min(max(progress, 0), 1) : 0
            if filled > 0 {
                picture.fillRoundedRect(x: x, y: bar.margin, width: width * filled, height: bar.height,
                                        radius: bar.height / 2, color: fill)
            }
        }
    }

    /// How many rows from the top `drawSegments` may change on a picture `width` wide (and
    /// `height` high): the scrim, with the segments inside it. A caller that draws the segments
    /// on a picture it must give back unchanged keeps just these rows.
    public static func segmentRows(width: Int, height: Int, inset: Double) -> Int {
        let bar = SegmentBar(pictureWidth: width, inset: inset)
        // An anti-aliased edge touches the row its bound falls in.
        let lowest = max(bar.scrim, bar.margin + bar.height + 1)
        return min(height, Int(lowest.rounded(.up)))
    }

    /// Where the segments and their scrim go on a picture of a given width.
    private struct SegmentBar {
        let margin: Double
        /// At least 2 px, so the segments stay visible on a small canvas.
        let gap: Double, height: Double
        /// The scrim's height: from the top to 48 px (at 720 wide) below the segments.
        let scrim: Double

        init(pictureWidth: Int, inset: Double) {
            let scale = Double(pictureWidth) / 720
            margin = inset * scale
            gap = max(2, 4 * scale)
            height = max(2, 4 * scale)
            scrim = margin + height + 48 * scale
        }
    }

    /// The loading ring (LinkedIn's ring around the story bubble): the avatar in a circle at the
    /// centre, with an arc turning around it once a second.
    public static func drawLoadingRing(on picture: inout RGBAImage, avatar: RGBAImage?, at t: Double) {
        let scale = Double(picture.width) / 720
        let cx = Double(picture.width) / 2, cy = Double(picture.height) / 2
        let avatarRadius = 44 * scale, ringRadius = 54 * scale
        if let avatar {
            picture.drawCircular(avatar, cx: cx, cy: cy, radius: avatarRadius)
        }
        let turn = (t - t.rounded(.down)) * 2 * Double.pi
        picture.drawArc(cx: cx, cy: cy, radius: ringRadius, thickness: 5 * scale, start: 0, end: 2 * Double.pi,
                        color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 60))
        picture.drawArc(cx: cx, cy: cy, radius: ringRadius, thickness: 5 * scale, start: turn, end: turn + 1.6 * Double.pi,
                        color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 235))
    }
}
