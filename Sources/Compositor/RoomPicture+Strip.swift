import Foundation

// MARK: - The strip as tiles

extension RoomPicture {
    /// What one slot of the strip shows, as a value that is equal exactly when the slot's
    /// pixels are: a room's strip changes at its participants' own rate (a ring's brightness
    /// every 100 ms window, a mute, a failure), not at the frame rate, and `RoomPainter`
    /// redraws only the slots whose tile changed.
    public enum Tile: Equatable, Sendable {
        /// Nothing: the room's background.
        case empty
        /// A participant's avatar, with its ring's grey (nil: not speaking) and marks.
        case participant(avatar: RGBAImage?, ring: UInt8?, muted: Bool, failed: Bool)
        /// The `+N` chip of the participants that do not fit.
        case more(Int)
    }

    /// One tile per slot of the layout: the first entries in order, and when more come than
    /// fit, a `+N` chip in the last slot.
    public static func tiles(_ strip: [StripEntry], layout: RoomLayout) -> [Tile] {
        let shown = strip.count > layout.slots.count ? layout.slots.count - 1 : strip.count
        var tiles = strip.prefix(shown).map { entry in
            Tile.participant(avatar: entry.avatar, ring: entry.speakingLevel.map(ringValue), muted: entry.muted, failed: entry.failed)
        }
        if strip.count > shown { tiles.append(.more(strip.count - shown)) }
        tiles += Array(repeating: .empty, count: max(0, layout.slots.count - tiles.count))
        return tiles
    }

    /// The ring's grey for a speaking level: its brightness follows the level.
    static func ringValue(_ level: Double) -> UInt8 { UInt8(max(60, min(255, 60 + level * 195))) }

    /// Draws `tile` centred on `centre`, over what is there (the background).
    static func drawTile(_ tile: Tile, at centre: SIMD2<Double>, layout: RoomLayout, on canvas: inout RGBAImage) {
        switch tile {
        case .empty:
            break
        case .participant(let avatar, let ring, let muted, let failed):
            drawAvatar(avatar: avatar, ring: ring, muted: muted, failed: failed, at: centre, layout: layout, on: &canvas)
        case .more(let count):
            let radius = layout.avatarDiameter / 2
            canvas.fillRoundedRect(x: centre.x - radius, y: centre.y - radius, width: 2 * radius, height: 2 * radius,
                                   radius: radius, color: placeholder)
            let label = "+\(count)"
            // In proportion to the chip, as on a phone; a floor only where glyphs would be no size at all.
            let size = max(5, Int((layout.avatarDiameter * 0.36).rounded()))
            let face = Typeface.bold, metrics = face.metrics(size: size)
            face.draw(label, x: Int(centre.x) - face.width(of: label, size: size) / 2,
                      y: Int(centre.y) - (metrics.ascent + metrics.descent) / 2, size: size, color: .white, on: &canvas)
        }
    }
}
