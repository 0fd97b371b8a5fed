
/// The UI drawn over a story, into its face's texture so that it turns with the cube: progress
/// segments along the top. Sizes come from a 720-wide reference, so every canvas size looks alike.
public enum StoryOverlay {
    /// One segment per item: finished ones full, future ones empty, the current one filled to
    /// `progress`, inside the safe area `inset` (px at 720 wide), over a soft top scrim.
    /// `opacity` fades the whole row.
    public static func drawSegments(on picture: inout RGBAImage, count: Int, current: Int, progress: Double,
                             inset: Double, opacity: Double) {
        guard count > 0, opacity > 0 else { return }
        let scale = Double(picture.width) / 720
        let margin = inset * scale
        // At least 2 px, so the segments stay visible on a small canvas.
        let gap = max(2, 4 * scale), height = max(2, 4 * scale)
        let width = (Double(picture.width) - 2 * margin - gap * Double(count - 1)) / Double(count)
        guard width > 0 else { return }
        // A soft dark scrim behind them, as Instagram draws it: white segments vanish on white
        // content without one. It fades out downwards, so the picture below is untouched.
        let scrim = margin + height + 48 * scale
        for row in 0..<Int(scrim.rounded(.up)) where row < picture.height {
            let fade = 1 - Double(row) / scrim
            let alpha = UInt8((0.38 * fade * fade * opacity * 255).rounded())
            guard alpha > 0 else { continue }
            picture.blendRow(row, color: RGBAColor(red: 0, green: 0, blue: 0, alpha: alpha))
        }
        let track = RGBAColor(red: 255, green: 255, blue: 255, alpha: UInt8(90 * opacity))
        let fill = RGBAColor(red: 255, green: 255, blue: 255, alpha: UInt8(240 * opacity))
        for index in 0..<count {
            let x = margin + Double(index) * (width + gap)
            picture.fillRoundedRect(x: x, y: margin, width: width, height: height, radius: height / 2, color: track)
            let filled = index < current ? 1 : index == current ? min(max(progress, 0), 1) : 0
            if filled > 0 {
                picture.fillRoundedRect(x: x, y: margin, width: width * filled, height: height, radius: height / 2, color: fill)
            }
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
