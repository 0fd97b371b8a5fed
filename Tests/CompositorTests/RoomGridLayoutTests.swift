@testable import Compositor
import XCTest

/// Issue 56: where a grid's, a stage's and a picture-in-picture's tiles go.
final class RoomGridLayoutTests: XCTestCase {
    func overlaps(_ a: TileRect, _ b: TileRect) -> Bool {
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
    }

    /// At every count and canvas: inside the canvas (and above the dots' band when paged),
    /// apart, of one size, at the participants' shape, even sides (decoded at their size).
    func testGridTilesFillTheCanvasAtTheParticipantsShape() {
        for (width, height) in [(720, 1280), (1280, 720), (144, 256)] {
            let layout = RoomLayout(width: width, height: height)
            for count in 1...16 {
                for paged in [false, true] {
                    let tiles = layout.gridTiles(count: count, aspect: 9.0 / 16, paged: paged)
                    XCTAssertEqual(tiles.count, count)
                    let bottom = Double(height) - layout.padding - (paged ? layout.dotsBand : 0)
                    for (i, tile) in tiles.enumerated() {
                        XCTAssertTrue(tile.x >= 0 && tile.y >= 0 && tile.x + tile.width <= width && Double(tile.y + tile.height) <= bottom + 1,
                                      "\(width)x\(height), \(count): \(tile)")
                        XCTAssertEqual(tile.width % 2, 0)
                        XCTAssertEqual(tile.height % 2, 0)
                        XCTAssertEqual(tile.width, tiles[0].width)
                        XCTAssertEqual(Double(tile.width) / Double(tile.height), 9.0 / 16, accuracy: 0.05)
                        for other in tiles[(i + 1)...] { XCTAssertFalse(overlaps(tile, other), "\(tile) and \(other)") }
                    }
                }
            }
        }
        // Six portrait cameras on a portrait canvas: three rows of two or two of three, whichever
        // gives larger tiles, and larger than seven would have.
        let layout = RoomLayout(width: 720, height: 1280)
        let six = layout.gridTiles(count: 6, aspect: 9.0 / 16, paged: false)
        XCTAssertGreaterThan(six[0].width, layout.gridTiles(count: 7, aspect: 9.0 / 16, paged: false)[0].width - 1)
        XCTAssertGreaterThan(six[0].width * six[0].height, 200 * 356)
    }

    /// A stage's tiles fill the large area between them.
    func testStageTilesFillTheLargeArea() {
        let layout = RoomLayout(width: 720, height: 1280)
        for count in 1...4 {
            let tiles = layout.stageTiles(count: count, aspect: 9.0 / 16)
            let area = tiles.reduce(0) { $0 + $1.width * $1.height }
            XCTAssertGreaterThan(Double(area), layout.large.width * layout.large.height * 0.9, "\(count): \(tiles)")
            for tile in tiles {
                XCTAssertTrue(Double(tile.x) >= layout.large.x - 1 && Double(tile.x + tile.width) <= layout.large.x + layout.large.width + 1)
            }
        }
    }

    /// The picture-in-picture tile lies in the large area's bottom-right corner.
    func testPictureInPictureIsInTheLargeAreasCorner() {
        let layout = RoomLayout(width: 720, height: 1280)
        let pip = layout.pictureInPicture(aspect: 9.0 / 16)
        XCTAssertGreaterThan(pip.centre.x, layout.largeCentre.x)
        XCTAssertGreaterThan(pip.centre.y, layout.largeCentre.y)
        XCTAssertLessThanOrEqual(Double(pip.x + pip.width), layout.large.x + layout.large.width)
        XCTAssertLessThanOrEqual(Double(pip.y + pip.height), layout.large.y + layout.large.height)
        XCTAssertEqual(Double(pip.width), layout.large.width * 0.3, accuracy: 2)
    }

    /// A grid page drawn: each tile's picture where its rectangle says, the speaker's ring round
    /// its tile, the dots.
    func testAGridPageIsDrawnWhereItsTilesAre() {
        let layout = RoomLayout(width: 360, height: 640)
        let rects = layout.gridTiles(count: 3, aspect: 9.0 / 16, paged: true)
        let colours = [RGBAColor(red: 255, green: 0, blue: 0), RGBAColor(red: 0, green: 255, blue: 0), RGBAColor(red: 0, green: 0, blue: 255)]
        let entries = zip(rects, colours).enumerated().map { index, pair in
            RoomPicture.TileEntry(rect: pair.0, content: .picture(RGBAImage(width: pair.0.width, height: pair.0.height, fill: pair.1)),
                                  speaking: index == 1)
        }
        let picture = RoomPicture.renderGrid(entries, dots: (2, 1), layout: layout)
        for (rect, colour) in zip(rects, colours) {
            XCTAssertEqual(picture[Int(rect.centre.x), Int(rect.centre.y)], colour)
            XCTAssertEqual(picture[rect.x + rect.width / 2, rect.y + 1], colour, "the tile's top edge")
        }
        // The ring: just outside the speaker's tile, the speaking colour; outside the others', background.
        let ring = rects[1], plain = rects[0]
        XCTAssertEqual(picture[ring.x + ring.width / 2, ring.y - 1], RoomPicture.speakingColor)
        XCTAssertEqual(picture[plain.x + plain.width / 2, plain.y - 1], RoomPicture.background)
        // A picture of another size is cropped to the tile's shape, not stretched: a wide
        // picture, left half red and right half blue, shows only their middle.
        var wide = RGBAImage(width: 400, height: 100, fill: RGBAColor(red: 255, green: 0, blue: 0))
        wide.fill(RGBAColor(red: 0, green: 0, blue: 255), columns: 200..<400, rows: 0..<100)
        let covered = RoomPicture.covering(wide, width: 50, height: 100)
        XCTAssertEqual(covered.width, 50)
        XCTAssertEqual(covered[2, 50].red, 255, "the left of the middle is red")
        XCTAssertEqual(covered[47, 50].blue, 255, "the right of the middle is blue")
    }

    /// The speaker's ring painted only where the tile does not cover it: the same pixels as the
    /// ring painted whole under the tile, at every size the layouts use.
    func testTheRingPaintedAroundTheTileIsTheWholeRingsPixels() {
        for width in [144, 250, 360, 720] {
            let layout = RoomLayout(width: width, height: width * 16 / 9)
            let rect = layout.gridTiles(count: 5, aspect: 9.0 / 16, paged: true)[2]
            var tile = RGBAImage(width: rect.width, height: rect.height, fill: RGBAColor(red: 10, green: 200, blue: 90))
            tile.fill(RGBAColor(red: 250, green: 20, blue: 20), columns: 0..<rect.width / 2, rows: 0..<rect.height / 2)
            var drawn = RGBAImage(width: layout.width, height: layout.height, fill: RoomPicture.background)
            RoomPicture.drawTiles([RoomPicture.TileEntry(rect: rect, content: .picture(tile), speaking: true)], on: &drawn, layout: layout)
            var reference = RGBAImage(width: layout.width, height: layout.height, fill: RoomPicture.background)
            let ring = max(2, layout.gap * 0.25), radius = layout.cornerRadius / 2
            reference.fillRoundedRect(x: Double(rect.x) - ring, y: Double(rect.y) - ring, width: Double(rect.width) + 2 * ring,
                                      height: Double(rect.height) + 2 * ring, radius: radius + ring, color: RoomPicture.speakingColor)
            reference.paste(tile, x: rect.x, y: rect.y, cornerRadius: radius)
            XCTAssertEqual(drawn.pixels, reference.pixels, "at \(width) wide")
        }
    }
}
