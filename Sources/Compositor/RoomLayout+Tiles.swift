import Foundation

// MARK: - Where each slot of the strip draws

extension RoomLayout {
    /// The pixels a slot's tile may touch: its speaker ring's reach (the widest thing a tile
    /// draws: the avatar, the marks and the `+N` chip lie inside it), clipped to the canvas.
    public func tileRect(_ slot: Int) -> (columns: Range<Int>, rows: Range<Int>) {
        let centre = slots[slot]
        // As `drawArc` reaches for the ring `RoomPicture.drawAvatar` draws.
        let reach = avatarDiameter / 2 + gap * 0.3 + max(1.5, gap * 0.25) / 2 + 1
        func span(_ low: Double, _ high: Double, _ count: Int) -> Range<Int> {
            let first = Int(min(max(low, 0), Double(count))), last = Int(min(max(high, -1), Double(count - 1)))
            return first..<max(first, last + 1)
        }
        return (span(centre.x - reach, centre.x + reach, width), span(centre.y - reach, centre.y + reach, height))
    }

    /// Whether every slot's tile can be redrawn alone: the tiles' rectangles are apart from
    /// each other and from the large area, so no pixel is drawn by two parts. At the usual
    /// sizes from 720 wide up they are; on a canvas under about 600 pixels wide a
    /// ring's anti-aliased edge reaches into the next slot's, and `RoomPainter` then redraws
    /// the whole strip when any tile changes.
    public var tilesApart: Bool {
        let largeBottom = Int(large.y) + Int(large.height)
        let rects = slots.indices.map(tileRect)
        guard rects.allSatisfy({ $0.rows.lowerBound >= largeBottom }) else { return false }
        return zip(rects, rects.dropFirst()).allSatisfy { $0.columns.upperBound <= $1.columns.lowerBound }
    }

    /// The rows of the strip, below the large area: what a whole-strip redraw puts back.
    public var stripRows: Range<Int> { min(height, Int(large.y) + Int(large.height))..<height }
}
