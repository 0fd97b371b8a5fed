import Foundation

/// A live room's picture drawn over the last one, redrawing only what changed: the large area
/// when its picture is a new one, and each strip slot whose tile changed. The pixels are
/// `RoomPicture.render`'s for the same values (`RoomPainterTests` compares them frame by frame);
/// what is saved is the strip, which changes at its participants' rate (a ring every 100 ms
/// window, a mute, a join), redrawn on every frame at 30 fps, and a canvas made and filled per
/// frame. At 720x1280 a 4-participant room's overlay went from about 21 to about 5 ms of CPU a
/// frame (`bench/room-throughput.sh`, with the direct drawing of the large area; docs/live.md).
///
/// Owned by one room on the render thread. The canvas it returns shares storage with the one it
/// keeps (copy on write): when the caller has let go of the last frame before asking for the
/// next, the canvas is drawn over in place; otherwise it is copied once, still correct.
public struct RoomPainter {
    /// What identifies the large area's content: equal keys promise equal pictures, so the area
    /// is not drawn again. The caller's to choose (a player and its picture's number, a seat's
    /// prepared avatar content).
    public struct LargeKey: Hashable, Sendable {
        public var source: Int
        public var version: Int
        public init(source: Int, version: Int) {
            self.source = source
            self.version = version
        }
    }

    public let layout: RoomLayout
    private var canvas: RGBAImage?
    /// What the kept canvas shows: nil where it must be drawn again.
    private var drawnLarge: LargeKey?
    private var drawnTiles: [RoomPicture.Tile?]
    private let tilesApart: Bool

    public init(layout: RoomLayout) {
        self.layout = layout
        drawnTiles = Array(repeating: nil, count: layout.slots.count)
        tilesApart = layout.tilesApart
    }

    /// The last picture drawn, if any (a switch of the large participant fades from it).
    public var lastPicture: RGBAImage? { canvas }

    /// The room with `large` (known by `key`; nil: always drawn) and `strip`, as
    /// `RoomPicture.render(large:strip:layout:)` draws it.
    public mutating func render(large: RoomPicture.Large, key: LargeKey?, strip: [RoomPicture.StripEntry]) -> RGBAImage {
        let tiles = RoomPicture.tiles(strip, layout: layout)
        // Where a tile's edge reaches into its neighbour's, a change in the strip is drawn whole.
        if !tilesApart, tiles != drawnTiles.compactMap({ $0 }) { canvas = nil }
        var picture: RGBAImage
        let fresh: Bool
        if let kept = canvas {
            fresh = false
            picture = kept
            // Let go of the kept reference, so the canvas is drawn over in place when the caller
            // has let go of it too.
            canvas = nil
        } else {
            fresh = true
            picture = RGBAImage(width: layout.width, height: layout.height, fill: RoomPicture.background)
            drawnLarge = nil
            drawnTiles = Array(repeating: nil, count: layout.slots.count)
        }
        if key == nil || key != drawnLarge {
            // `paste` blends its rounded corners over what is under them: the background.
            if !fresh { resetLargeCorners(of: &picture) }
            RoomPicture.drawLarge(large, on: &picture, layout: layout)
            drawnLarge = key
        }
        for (slot, tile) in tiles.enumerated() where drawnTiles[slot] != tile {
            let rect = layout.tileRect(slot)
            if drawnTiles[slot] != nil { picture.fill(RoomPicture.background, columns: rect.columns, rows: rect.rows) }
            RoomPicture.drawTile(tile, at: layout.slots[slot], layout: layout, on: &picture)
            drawnTiles[slot] = tile
        }
        canvas = picture
        return picture
    }

    /// Puts the background back under the large area's four corner squares, where `paste`
    /// blends the rounded corners, as a canvas made afresh has it.
    private func resetLargeCorners(of picture: inout RGBAImage) {
        let area = layout.large
        guard area.width >= 2, area.height >= 2 else { return }
        let x = Int(area.x), y = Int(area.y), w = Int(area.width), h = Int(area.height)
        let r = max(0, min(layout.cornerRadius, Double(w) / 2, Double(h) / 2))
        let corner = r > 0 ? Int(r.rounded(.up)) : 0
        guard corner > 0 else { return }
        for columns in [x..<(x + corner), (x + w - corner)..<(x + w)] {
            for rows in [y..<(y + corner), (y + h - corner)..<(y + h)] {
                let c = max(0, columns.lowerBound)..<min(picture.width, columns.upperBound)
                let r = max(0, rows.lowerBound)..<min(picture.height, rows.upperBound)
                if !c.isEmpty, !r.isEmpty { picture.fill(RoomPicture.background, columns: c, rows: r) }
            }
        }
    }
}
