import Foundation

/// A rectangle of the canvas, in pixels (whole, so a tile's picture is decoded at its size and
/// pasted without rescaling); also the region `compare` measures.
public struct TileRect: Sendable, Equatable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var centre: SIMD2<Double> { SIMD2(Double(x) + Double(width) / 2, Double(y) + Double(height) / 2) }
    public var size: (width: Int, height: Int) { (width, height) }
}

// MARK: - Grid, stage and picture-in-picture

extension RoomLayout {
    /// Where a grid page's page dots go: a band along the bottom, kept whenever the grid has
    /// more than one page, so its tiles keep their size from page to page.
    public var dotsBand: Double { 24 * Double(width) / 720 }

    /// The tiles of a grid page of `count` participants whose pictures have the shape `aspect`
    /// (width / height): as large as the canvas allows at that shape, the columns chosen for
    /// the largest tiles, the block centred and a short last row centred too (Stream's and
    /// LiveKit's grids). `paged`: the grid has several pages (the band for the dots is kept).
    public func gridTiles(count: Int, aspect: Double, paged: Bool) -> [TileRect] {
        guard count > 0 else { return [] }
        let area = (x: padding, y: padding, width: Double(width) - 2 * padding,
                    height: Double(height) - 2 * padding - (paged ? dotsBand : 0))
        return RoomLayout.tiles(count: count, aspect: aspect, in: area, gap: gap / 2, stretch: false)
    }

    /// A stage's large tiles: `count` (1 to 4) most recent speakers side by side in the large
    /// area, filling it (each picture cropped to its tile, as a call's stage crops; a short
    /// last row's tiles wider).
    public func stageTiles(count: Int, aspect: Double) -> [TileRect] {
        guard count > 0 else { return [] }
        return RoomLayout.tiles(count: count, aspect: aspect, in: large, gap: gap / 2, stretch: true)
    }

    /// A screen share's picture-in-picture tile: its sharer's camera, a third of the large
    /// area's width at the camera's shape (at most 40 % of its height), in its bottom-right
    /// corner.
    public func pictureInPicture(aspect: Double) -> TileRect {
        var w = large.width * 0.3, h = w / max(0.1, aspect)
        if h > large.height * 0.4 { h = large.height * 0.4; w = h * aspect }
        let x = large.x + large.width - w - padding, y = large.y + large.height - h - padding
        return TileRect(x: Int(x.rounded()), y: Int(y.rounded()), width: max(16, Int(w) & ~1), height: max(16, Int(h) & ~1))
    }

    /// `count` tiles in rows and columns within `area`: the column count that gives the largest
    /// tiles of shape `aspect`; with `stretch`, each tile then takes its whole cell.
    static func tiles(count: Int, aspect: Double, in area: (x: Double, y: Double, width: Double, height: Double),
                      gap: Double, stretch: Bool) -> [TileRect] {
        var best: (columns: Int, rows: Int, width: Double, height: Double)?
        for columns in 1...count {
            let rows = (count + columns - 1) / columns
            let cellWidth = (area.width - gap * Double(columns - 1)) / Double(columns)
            let cellHeight = (area.height - gap * Double(rows - 1)) / Double(rows)
            guard cellWidth > 1, cellHeight > 1 else { continue }
            let w = min(cellWidth, cellHeight * aspect), h = w / aspect
            let (tileWidth, tileHeight) = stretch ? (cellWidth, cellHeight) : (w, h)
            // Stretched cells are all as large; the shape decides: the cells nearest the
            // pictures' shape crop least.
            let score = stretch ? -abs(log((cellWidth / cellHeight) / aspect)) : w * h
            let bestScore = best.map { stretch ? -abs(log(($0.width / $0.height) / aspect)) : $0.width * $0.height }
            if bestScore == nil || score > bestScore! + 1e-9 { best = (columns, rows, tileWidth, tileHeight) }
        }
        guard let best else { return [] }
        let tileWidth = max(16, Int(best.width) & ~1), tileHeight = max(16, Int(best.height) & ~1)
        let blockHeight = Double(best.rows * tileHeight) + gap * Double(best.rows - 1)
        let top = area.y + (area.height - blockHeight) / 2
        var rects: [TileRect] = []
        for index in 0..<count {
            let row = index / best.columns, column = index % best.columns
            let inRow = row == best.rows - 1 ? count - row * best.columns : best.columns
            // Stretched (a stage), a short last row's tiles share its whole width: no part of
            // the large area is left empty.
            let width = stretch ? max(16, Int((area.width - gap * Double(inRow - 1)) / Double(inRow)) & ~1) : tileWidth
            let rowWidth = Double(inRow * width) + gap * Double(inRow - 1)
            let left = area.x + (area.width - rowWidth) / 2
            rects.append(TileRect(x: Int((left + Double(column) * (Double(width) + gap)).rounded()),
                                  y: Int((top + Double(row) * (Double(tileHeight) + gap)).rounded()),
                                  width: width, height: tileHeight))
        }
        return rects
    }
}
