import Compositor
import XCTest

/// `RoomPainter` redraws only what changed in a room's picture; these hold it to the pixels of
/// `RoomPicture.render`, which draws every frame whole.
final class RoomPainterTests: XCTestCase {
    // MARK: - The same pixels as a whole redraw

    /// A seeded run of room frames, each drawn whole and by one painter over the last: the
    /// large picture changing or kept, rings brightening and going out, mutes, failures,
    /// participants joining and leaving (the `+N` chip coming and going), at the sizes a room
    /// renders at and at one where the strip's tiles touch (redrawn whole).
    func testPainterDrawsWhatAWholeRedrawDraws() {
        for (width, height) in [(720, 1280), (360, 640), (144, 256), (250, 444)] {
            let layout = RoomLayout(width: width, height: height)
            var painter = RoomPainter(layout: layout)
            var random = SplitMix64(seed: UInt64(width))
            let avatars = (0..<3).map { TestPictures.ramp(width: 40 + $0 * 10, height: 48, blue: UInt8($0 * 80)) }
            let size = layout.fittedVideoSize(for: (360, 640))
            let pictures = (0..<3).map { TestPictures.ramp(width: size.width, height: size.height, blue: UInt8(60 * $0)) }
            let landscape = TestPictures.ramp(width: 320, height: 180, blue: 9)
            let content = layout.avatarContent(avatars[0], failed: false)
            var entries = (0..<4).map { _ in RoomPicture.StripEntry(avatar: nil, speakingLevel: nil, muted: false, failed: false) }
            var kept: [(drawn: RGBAImage, whole: RGBAImage)] = []
            // Fewer frames at 720x1280: a whole redraw there takes most of a second in a debug
            // build (two under ASan), and the seeded changes come as often in 24 frames as in
            // 60. 720 is the size whose tiles are apart (each drawn alone); 1080x1920's layout
            // is 720's scaled, and its tiles being apart is checked in
            // `testStripTilesAreApartAtRenderSizes`. Drawing it here too cost 9 of the 34 CPU s.
            for frame in 0..<(width >= 720 ? 24 : 60) {
                // The large area: a video picture (new, or the same under the same key), a
                // landscape camera over its blurred fill, or prepared avatar content.
                let pick = Int(random.next() % 5)
                let large: RoomPicture.Large = pick < 3 ? .picture(pictures[pick]) : pick == 3 ? .picture(landscape) : .content(content)
                let key = RoomPainter.LargeKey(source: pick, version: 0)
                // Each participant changes now and then, as a room's do.
                for index in entries.indices where random.next() % 3 == 0 {
                    switch random.next() % 5 {
                    case 0: entries[index].speakingLevel = nil
                    case 1: entries[index].speakingLevel = Double(random.next() % 100) / 100
                    case 2: entries[index].muted.toggle()
                    case 3: entries[index].failed.toggle()
                    default: entries[index].avatar = random.next() % 4 == 0 ? nil : avatars[Int(random.next() % 3)]
                    }
                }
                if frame % 12 == 6 {
                    // Joins and leaves: from 2 to 11 in the strip, past the chip and back.
                    let count = 2 + Int(random.next() % 10)
                    entries = (0..<count).map { i in
                        i < entries.count ? entries[i] : RoomPicture.StripEntry(avatar: avatars[i % 3], speakingLevel: nil, muted: i % 2 == 0, failed: false)
                    }
                }
                let drawn = painter.render(large: large, key: key, strip: entries)
                let whole = RoomPicture.render(large: large, strip: entries, layout: layout)
                if drawn != whole {
                    let differing = (0..<(width * height)).filter { drawn[$0 % width, $0 / width] != whole[$0 % width, $0 / width] }
                    XCTFail("\(width)x\(height) frame \(frame): \(differing.count) pixels differ, first at \(differing.first.map { ($0 % width, $0 / width) }!)")
                    break
                }
                // Some frames are kept by the caller (a cross-fade's first picture), so the
                // painter's canvas is then shared and must be copied, not drawn over.
                if frame % 7 == 0 { kept.append((drawn, whole)) }
            }
            for (n, frame) in kept.enumerated() {
                XCTAssertTrue(frame.drawn == frame.whole, "\(width)x\(height): kept frame \(n) was drawn over")
            }
        }
    }

    // MARK: - The large area written straight into the canvas

    /// The large area drawn straight into the canvas has the pixels of the way it was drawn
    /// before: its content made at the area's size (`fitted`, or the prepared content) and
    /// pasted over the background with rounded corners. Pictures of every shape: the fitted
    /// size (no rescale), a landscape camera (a fill beside it), one wider than the area, one
    /// of 1 pixel (a flat fill), at sizes whose corners and halves round differently.
    func testLargeAreaDrawnInPlaceMatchesThePastedContent() {
        for (width, height) in [(720, 1280), (361, 641), (144, 256)] {
            let layout = RoomLayout(width: width, height: height)
            let area = layout.large
            let fitted = layout.fittedVideoSize(for: (360, 640))
            let pictures = [TestPictures.ramp(width: fitted.width, height: fitted.height),
                            TestPictures.ramp(width: 320, height: 180, blue: 40),
                            TestPictures.ramp(width: 2000, height: 300, blue: 90),
                            TestPictures.ramp(width: 33, height: 400, blue: 140),
                            TestPictures.solid(RGBAColor(red: 200, green: 10, blue: 10), width: 1, height: 1)]
            let content = layout.avatarContent(TestPictures.ramp(width: 64, height: 64), failed: true)
            let cases: [(RoomPicture.Large, RGBAImage)] = pictures.map {
                (.picture($0), RoomPicture.fitted($0, width: Int(area.width), height: Int(area.height)))
            } + [(.content(content), content)]
            for (n, (large, made)) in cases.enumerated() {
                var expected = RGBAImage(width: width, height: height, fill: RoomPicture.background)
                expected.paste(made, x: Int(area.x), y: Int(area.y), cornerRadius: layout.cornerRadius)
                let drawn = RoomPicture.render(large: large, strip: [], layout: layout)
                XCTAssertTrue(drawn == expected, "\(width)x\(height), case \(n): the large area differs from the pasted content")
            }
        }
    }

    // MARK: - Only what changed is drawn

    /// The large area is drawn again only for a new key: a different picture under the same key
    /// is not drawn (the caller promised it is the same), and a new key draws it.
    func testLargeAreaIsDrawnOnlyForANewKey() {
        let layout = RoomLayout(width: 360, height: 640)
        var painter = RoomPainter(layout: layout)
        let size = layout.fittedVideoSize(for: (360, 640))
        let first = TestPictures.ramp(width: size.width, height: size.height, blue: 0)
        let second = TestPictures.ramp(width: size.width, height: size.height, blue: 200)
        let key = RoomPainter.LargeKey(source: 1, version: 1)
        let strip = [RoomPicture.StripEntry(avatar: nil, speakingLevel: 0.5, muted: false, failed: false)]
        let one = painter.render(large: .picture(first), key: key, strip: strip)
        let kept = painter.render(large: .picture(second), key: key, strip: strip)
        XCTAssertEqual(kept, one, "the same key: the area is not drawn again")
        let next = painter.render(large: .picture(second), key: RoomPainter.LargeKey(source: 1, version: 2), strip: strip)
        XCTAssertEqual(next, RoomPicture.render(large: .picture(second), strip: strip, layout: layout))
        XCTAssertNotEqual(next, one)
        let unkeyed = painter.render(large: .picture(first), key: nil, strip: strip)
        XCTAssertEqual(unkeyed, one, "no key: drawn on every frame")
    }

    /// From 720 wide up each slot's tile is drawn alone: the tiles are apart. Narrower, a
    /// ring's reach (with `drawArc`'s pixel of margin) touches the next slot's, and a change in
    /// the strip redraws the frame whole.
    func testStripTilesAreApartAtRenderSizes() {
        for width in [720, 1080] {
            XCTAssertTrue(RoomLayout(width: width, height: width * 16 / 9).tilesApart, "\(width) wide")
        }
        for width in [144, 360] {
            XCTAssertFalse(RoomLayout(width: width, height: width * 16 / 9).tilesApart, "\(width) wide")
        }
    }
}
