import Foundation

// MARK: - Tiles: a grid page, a stage, a picture-in-picture camera

extension RoomPicture {
    /// One participant's tile.
    public struct TileEntry: Sendable {
        public enum Content: Sendable {
            /// A video picture, decoded at the tile's size (another size is cropped to the tile's
            /// shape and scaled: a first picture before the player caught up with a new size).
            case picture(RGBAImage)
            /// The tile's content made already (`avatarTile`, kept by the caller).
            case content(RGBAImage)
        }

        public var rect: TileRect
        public var content: Content
        /// The dominant speaker's tile has a ring round it.
        public var speaking: Bool

        public init(rect: TileRect, content: Content, speaking: Bool) {
            self.rect = rect
            self.content = content
            self.speaking = speaking
        }
    }

    public static let speakingColor = RGBAColor(red: 0x8e, green: 0x6b, blue: 0xe8)
    public static let dotColor = RGBAColor(red: 0x6a, green: 0x6a, blue: 0x78)

    /// A grid page drawn whole: the tiles and, for a grid of several pages, a dot a page (the
    /// one shown white).
    public static func renderGrid(_ tiles: [TileEntry], dots: (count: Int, current: Int)?, layout: RoomLayout) -> RGBAImage {
        var canvas = RGBAImage(width: layout.width, height: layout.height, fill: background)
        drawGrid(tiles, dots: dots, layout: layout, into: &canvas)
        return canvas
    }

    /// `renderGrid` into a canvas of the layout's size kept from frame to frame: a new 3.7 MB
    /// picture a frame (720x1280) cost more in page faults than its drawing.
    public static func drawGrid(_ tiles: [TileEntry], dots: (count: Int, current: Int)?, layout: RoomLayout, into canvas: inout RGBAImage) {
        precondition(canvas.width == layout.width && canvas.height == layout.height, "a grid's canvas is the layout's size")
        canvas.fill(background)
        drawTiles(tiles, on: &canvas, layout: layout)
        if let dots, dots.count > 1 { drawPageDots(count: dots.count, current: dots.current, on: &canvas, layout: layout) }
    }

    /// Each tile pasted with rounded corners; the speaker's ring first, under it.
    public static func drawTiles(_ tiles: [TileEntry], on canvas: inout RGBAImage, layout: RoomLayout, radius: Double? = nil) {
        let radius = radius ?? layout.cornerRadius / 2
        for tile in tiles {
            let r = tile.rect
            if tile.speaking {
                // Under the tile only its rounded corners show the ring: its rows between the
                // corners are copied whole by the paste, so the ring is not painted there.
                let ring = max(2, layout.gap * 0.25)
                let corner = Int(max(0, min(radius, Double(r.width) / 2, Double(r.height) / 2)).rounded(.up))
                canvas.fillRoundedRect(x: Double(r.x) - ring, y: Double(r.y) - ring, width: Double(r.width) + 2 * ring,
                                       height: Double(r.height) + 2 * ring, radius: radius + ring, color: speakingColor,
                                       outside: (r.x..<(r.x + r.width), (r.y + corner)..<(r.y + r.height - corner)))
            }
            let picture: RGBAImage
            switch tile.content {
            case .picture(let frame): picture = frame.width == r.width && frame.height == r.height ? frame : covering(frame, width: r.width, height: r.height)
            case .content(let made): picture = made
            }
            canvas.paste(picture, x: r.x, y: r.y, cornerRadius: radius)
        }
    }

    /// `picture` cropped to the shape `width`×`height` about its centre and scaled to it.
    static func covering(_ picture: RGBAImage, width: Int, height: Int) -> RGBAImage {
        guard picture.width >= 2, picture.height >= 2 else { return RGBAImage(width: width, height: height, fill: placeholder) }
        let scale = max(Double(width) / Double(picture.width), Double(height) / Double(picture.height))
        let cropWidth = min(picture.width, max(1, Int((Double(width) / scale).rounded())))
        let cropHeight = min(picture.height, max(1, Int((Double(height) / scale).rounded())))
        let crop = picture.cropped(x: (picture.width - cropWidth) / 2, y: (picture.height - cropHeight) / 2, width: cropWidth, height: cropHeight)
        return crop.scaled(width: width, height: height)
    }

    /// A participant without video in a tile: the avatar in a circle over it blurred and
    /// darkened (as the large area shows it), the error mark when its source failed.
    /// `width` and `height` may be fractional (a spotlight's large area): the picture is their
    /// whole part, the circle centred on the exact area.
    public static func avatarTile(_ avatar: RGBAImage?, failed: Bool, width w: Double, height h: Double, markRadius: Double) -> RGBAImage {
        var content = RGBAImage(width: max(1, Int(w)), height: max(1, Int(h)), fill: placeholder)
        if let avatar {
            content = avatar.scaled(width: content.width, height: content.height).blurred(radius: max(2, content.width / 24))
            content.darken(by: 0.45)
            content.drawCircular(avatar.centreSquare(), cx: w / 2, cy: h / 2, radius: min(w, h) * 0.25)
        }
        if failed { drawErrorMark(on: &content, cx: w / 2, cy: h * 0.8, radius: markRadius) }
        return content
    }

    /// A dot a page along the bottom, centred; the page shown white.
    static func drawPageDots(count: Int, current: Int, on canvas: inout RGBAImage, layout: RoomLayout) {
        let radius = max(2, layout.dotsBand * 0.2), step = radius * 3.5
        let y = Double(layout.height) - layout.padding - layout.dotsBand / 2
        let first = Double(layout.width) / 2 - step * Double(count - 1) / 2
        for page in 0..<count {
            let x = first + step * Double(page)
            canvas.fillRoundedRect(x: x - radius, y: y - radius, width: 2 * radius, height: 2 * radius, radius: radius,
                                   color: page == current ? .white : dotColor)
        }
    }
}
