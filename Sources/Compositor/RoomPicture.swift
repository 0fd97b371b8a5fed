import Foundation

/// Where a live room's parts go on the canvas: the first participant large at the top, with
/// rounded corners and padding, and the others in a strip of avatars along the bottom. Sizes
/// are the call layouts' (Stream's `cornerRadius(32)`, 80-point avatars), scaled from 720 wide.
public struct RoomLayout: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let padding: Double
    public let cornerRadius: Double
    public let avatarDiameter: Double
    public let gap: Double
    /// The large participant's area.
    public let large: (x: Double, y: Double, width: Double, height: Double)
    /// The centre of each avatar slot in the strip, left to right.
    public let slots: [SIMD2<Double>]

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        let scale = Double(width) / 720
        padding = 16 * scale
        cornerRadius = 32 * scale
        avatarDiameter = 80 * scale
        gap = 16 * scale
        let stripHeight = avatarDiameter + 2 * padding
        large = (padding, padding, Double(width) - 2 * padding, Double(height) - stripHeight - 2 * padding)
        let count = max(1, Int((Double(width) - 2 * padding + gap) / (avatarDiameter + gap)))
        let centreY = Double(height) - padding - avatarDiameter / 2
        let first = padding + avatarDiameter / 2, step = avatarDiameter + gap
        slots = (0..<count).map { SIMD2(first + Double($0) * step, centreY) }
    }

    public static func == (a: RoomLayout, b: RoomLayout) -> Bool { a.width == b.width && a.height == b.height }

    /// The size at which a video of `source`'s shape (as shown: turned, sample aspect applied)
    /// fits the large area whole, aspect kept: the large participant's video is decoded at this
    /// size, so nothing is rescaled per frame, and a landscape camera keeps both its sides. A
    /// source of unknown size is decoded at the area's size (it fills it).
    public func fittedVideoSize(for source: (width: Int, height: Int)?) -> (width: Int, height: Int) {
        RoomLayout.fitted(source, within: largeAreaSize)
    }

    /// The large area's size in whole pixels: the box a large participant's video is fitted in.
    public var largeAreaSize: (width: Int, height: Int) { (Int(large.width), Int(large.height)) }

    /// The size at which a picture of `source`'s shape fits `area` whole, aspect kept, in even
    /// pixels (16 at least); `area` itself when the shape is not known.
    public static func fitted(_ source: (width: Int, height: Int)?, within area: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let areaWidth = Double(area.width), areaHeight = Double(area.height)
        guard let source, source.width > 0, source.height > 0 else {
            return (max(16, area.width & ~1), max(16, area.height & ~1))
        }
        let fit = min(areaWidth / Double(source.width), areaHeight / Double(source.height))
        return (max(16, Int((Double(source.width) * fit).rounded(.down)) & ~1),
                max(16, Int((Double(source.height) * fit).rounded(.down)) & ~1))
    }

    /// The large area's content for a participant without video: the avatar large, over the
    /// avatar blurred and darkened to fill the area. Costly: made once per participant.
    public func avatarContent(_ avatar: RGBAImage?, failed: Bool) -> RGBAImage {
        RoomPicture.avatarTile(avatar, failed: failed, width: large.width, height: large.height, markRadius: avatarDiameter / 3)
    }

    /// The centre of the large area, where the large participant's picture is centred.
    public var largeCentre: SIMD2<Double> { SIMD2(large.x + large.width / 2, large.y + large.height / 2) }
}

/// Draws a live room from plain values: what the large area shows, and one entry per avatar in
/// the strip. The player library decides who is where; this only paints.
public enum RoomPicture {
    /// One participant in the strip.
    public struct StripEntry: Sendable {
        public var avatar: RGBAImage?
        /// The current level, 0…1, for the ring's brightness; nil while not speaking.
        public var speakingLevel: Double?
        /// The participant has no sound.
        public var muted: Bool
        /// The participant's source failed.
        public var failed: Bool

        public init(avatar: RGBAImage?, speakingLevel: Double?, muted: Bool, failed: Bool) {
            self.avatar = avatar
            self.speakingLevel = speakingLevel
            self.muted = muted
            self.failed = failed
        }
    }

    /// What the large area shows.
    public enum Large: Sendable {
        /// A video picture (any size), fitted whole into the area with its aspect ratio kept,
        /// over a blurred fill of itself (`RoomPicture.fitted`).
        case picture(RGBAImage)
        /// A participant without video: the avatar large, over the avatar blurred to fill the area.
        case avatar(RGBAImage?, failed: Bool)
        /// The area's content made already (`RoomLayout.avatarContent`, kept by the caller).
        case content(RGBAImage)
    }

    public static let background = RGBAColor(red: 0x12, green: 0x12, blue: 0x16)
    public static let placeholder = RGBAColor(red: 0x4a, green: 0x4a, blue: 0x58)
    public static let muteColor = RGBAColor(red: 0xe0, green: 0x40, blue: 0x40)
    public static let errorColor = RGBAColor(red: 0xff, green: 0x30, blue: 0x30)

    /// The room at this moment, `width`×`height`, drawn whole: the reference `RoomPainter` draws
    /// the same pixels as, redrawing only what changed. The strip shows the first entries in
    /// order; when more come than fit, the last slot is a `+N` chip.
    public static func render(large: Large, strip: [StripEntry], layout: RoomLayout) -> RGBAImage {
        var canvas = RGBAImage(width: layout.width, height: layout.height, fill: background)
        drawLarge(large, on: &canvas, layout: layout)
        for (slot, tile) in zip(layout.slots, tiles(strip, layout: layout)) {
            drawTile(tile, at: slot, layout: layout, on: &canvas)
        }
        return canvas
    }

    /// Draws the large area's content straight into the canvas, over the background (which
    /// its rounded corners blend with): the pixels of the content made at the area's size and
    /// pasted with rounded corners, without making that picture on every frame.
    static func drawLarge(_ large: Large, on canvas: inout RGBAImage, layout: RoomLayout) {
        let area = layout.large
        guard area.width >= 2, area.height >= 2 else { return }
        let x = Int(area.x), y = Int(area.y), w = Int(area.width), h = Int(area.height)
        guard x >= 0, y >= 0, x + w <= canvas.width, y + h <= canvas.height else {
            // An area outside the canvas (never at the layout's sizes): the content made, then clipped.
            let content: RGBAImage
            switch large {
            case .picture(let picture): content = fitted(picture, width: w, height: h)
            case .avatar(let avatar, let failed): content = layout.avatarContent(avatar, failed: failed)
            case .content(let prepared): content = prepared
            }
            canvas.paste(content, x: x, y: y, cornerRadius: layout.cornerRadius)
            return
        }
        switch large {
        case .picture(let picture):
            drawFitted(picture, on: &canvas, x: x, y: y, width: w, height: h)
        case .avatar(let avatar, let failed):
            canvas.paste(layout.avatarContent(avatar, failed: failed), x: x, y: y)
        case .content(let prepared):
            canvas.paste(prepared, x: x, y: y)
        }
        canvas.roundCorners(x: x, y: y, width: w, height: h, radius: layout.cornerRadius, over: background)
    }

    static func drawAvatar(avatar: RGBAImage?, ring: UInt8?, muted: Bool, failed: Bool, at centre: SIMD2<Double>,
                           layout: RoomLayout, on canvas: inout RGBAImage) {
        let radius = layout.avatarDiameter / 2
        if let value = ring {
            canvas.drawArc(cx: centre.x, cy: centre.y, radius: radius + layout.gap * 0.3, thickness: max(1.5, layout.gap * 0.25),
                           start: 0, end: 2 * .pi, color: RGBAColor(red: value, green: value, blue: value))
        }
        if let avatar {
            canvas.drawCircular(avatar.centreSquare(), cx: centre.x, cy: centre.y, radius: radius)
        } else {
            canvas.fillRoundedRect(x: centre.x - radius, y: centre.y - radius, width: 2 * radius, height: 2 * radius,
                                   radius: radius, color: placeholder)
        }
        let markRadius = radius * 0.3
        if failed {
            drawErrorMark(on: &canvas, cx: centre.x + radius * 0.7, cy: centre.y + radius * 0.7, radius: markRadius)
        } else if muted {
            // A mute mark: a red disc with a white bar across it.
            let cx = centre.x + radius * 0.7, cy = centre.y + radius * 0.7
            canvas.fillRoundedRect(x: cx - markRadius, y: cy - markRadius, width: 2 * markRadius, height: 2 * markRadius,
                                   radius: markRadius, color: muteColor)
            canvas.fillRoundedRect(x: cx - markRadius * 0.6, y: cy - markRadius * 0.15, width: markRadius * 1.2,
                                   height: max(1, markRadius * 0.3), radius: 0, color: .white)
        }
    }

    /// A red disc with an exclamation mark: this participant's source failed.
    static func drawErrorMark(on canvas: inout RGBAImage, cx: Double, cy: Double, radius: Double) {
        canvas.fillRoundedRect(x: cx - radius, y: cy - radius, width: 2 * radius, height: 2 * radius, radius: radius, color: errorColor)
        canvas.fillRoundedRect(x: cx - radius * 0.12, y: cy - radius * 0.6, width: radius * 0.24, height: radius * 0.75,
                               radius: 0, color: .white)
        canvas.fillRoundedRect(x: cx - radius * 0.12, y: cy + radius * 0.3, width: radius * 0.24, height: radius * 0.24,
                               radius: 0, color: .white)
    }
}

extension RGBAImage {
    /// Rounds off the corners of the `width`×`height` rectangle at (`x`, `y`) (inside this
    /// picture) over `background`: each corner pixel becomes what `paste(_:x:y:cornerRadius:)`
    /// makes of the rectangle's pixel pasted over a canvas of `background` there, so a picture
    /// written straight into the canvas ends as a pasted one does.
    public mutating func roundCorners(x: Int, y: Int, width w: Int, height h: Int, radius: Double, over background: RGBAColor) {
        let fw = Double(w), fh = Double(h), r = max(0, min(radius, fw / 2, fh / 2))
        let corner = r > 0 ? Int(r.rounded(.up)) : 0
        guard corner > 0 else { return }
        let targetWidth = width
        let under = [Double(background.red), Double(background.green), Double(background.blue)]
        pixels.withUnsafeMutableBytes { out in
            for row in Array(0..<min(corner, h)) + Array(max(corner, h - corner)..<h) {
                let py = Double(row) + 0.5
                let dy = py < r ? r - py : (py > fh - r ? py - (fh - r) : 0)
                for column in Array(0..<min(corner, w)) + Array(max(corner, w - corner)..<w) {
                    let px = Double(column) + 0.5
                    let dx = px < r ? r - px : (px > fw - r ? px - (fw - r) : 0)
                    let coverage = dx > 0 && dy > 0 ? min(1, max(0, r + 0.5 - (dx * dx + dy * dy).squareRoot())) : 1
                    let i = ((y + row) * targetWidth + x + column) * 4
                    for c in 0..<3 {
                        out[i + c] = UInt8((under[c] * (1 - coverage) + Double(out[i + c]) * coverage).rounded())
                    }
                    out[i + 3] = 255
                }
            }
        }
    }

    /// Copies `picture` into this one with its top left at (`x`, `y`), clipped to this picture;
    /// with `cornerRadius`, its corners are rounded off (anti-aliased), showing this picture there.
    /// Rows are copied whole; only the corner squares are blended pixel by pixel.
    public mutating func paste(_ picture: RGBAImage, x: Int, y: Int, cornerRadius: Double = 0) {
        let w = Double(picture.width), h = Double(picture.height), r = max(0, min(cornerRadius, w / 2, h / 2))
        let corner = r > 0 ? Int(r.rounded(.up)) : 0
        // Wholly outside this picture (a tile past a small canvas's edge): nothing to copy.
        let firstColumn = max(0, -x), endColumn = min(picture.width, width - x)
        let firstRow = max(0, -y), endRow = min(picture.height, height - y)
        guard firstColumn < endColumn, firstRow < endRow else { return }
        let columns = firstColumn..<endColumn
        let targetWidth = width
        pixels.withUnsafeMutableBytes { out in
            picture.pixels.withUnsafeBytes { input in
                for row in firstRow..<endRow {
                    let inCornerRows = row < corner || row >= picture.height - corner
                    // Whole rows, or between the corners of a corner row, are plain copies.
                    let copied = inCornerRows ? max(columns.lowerBound, corner)..<min(columns.upperBound, picture.width - corner) : columns
                    if !copied.isEmpty {
                        let target = ((y + row) * targetWidth + x + copied.lowerBound) * 4
                        let source = (row * picture.width + copied.lowerBound) * 4
                        (out.baseAddress! + target).copyMemory(from: input.baseAddress! + source, byteCount: copied.count * 4)
                    }
                    guard inCornerRows else { continue }
                    let py = Double(row) + 0.5
                    let dy = py < r ? r - py : (py > h - r ? py - (h - r) : 0)
                    for column in columns where !copied.contains(column) {
                        let px = Double(column) + 0.5
                        let dx = px < r ? r - px : (px > w - r ? px - (w - r) : 0)
                        let coverage = dx > 0 && dy > 0 ? min(1, max(0, r + 0.5 - (dx * dx + dy * dy).squareRoot())) : 1
                        let i = ((y + row) * targetWidth + x + column) * 4, j = (row * picture.width + column) * 4
                        for c in 0..<3 {
                            out[i + c] = UInt8((Double(out[i + c]) * (1 - coverage) + Double(input[j + c]) * coverage).rounded())
                        }
                        out[i + 3] = 255
                    }
                }
            }
        }
    }
}
