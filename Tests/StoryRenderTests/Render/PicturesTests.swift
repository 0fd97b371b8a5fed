import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

final class PicturesTests: XCTestCase {
    // MARK: - Contact sheet

    func testContactSheetGridAndLabels() throws {
        let photos = ScratchFolder()
        try RGBAImage(width: 36, height: 64, fill: RGBAColor(red: 220, green: 30, blue: 30)).writePNG(to: photos.file("red.png"))
        try RGBAImage(width: 36, height: 64, fill: RGBAColor(red: 30, green: 40, blue: 220)).writePNG(to: photos.file("blue.png"))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 2, "transition": {"style": "cut"},
         "stories": [{"id": "a", "items": [{"uri": "red.png"}]}, {"id": "b", "items": [{"uri": "blue.png"}]}],
         "script": [{"at": 1.0, "action": "swipe", "direction": "next"}]}
        """, folder: photos.path)
        let output = ScratchFolder()
        try render(board, into: output) { options in
            options.overlay = false
            options.contactSheet = output.file("sheet.png")
            options.sheetColumns = 3
            options.sheetFrames = 6
        }
        let sheet = try RGBAImage(contentsOfPNG: output.file("sheet.png"))
        // 6 frames of 20: numbers 0, 4, 8, 11, 15, 19 (times 0, 0.4, 0.8, 1.1, 1.5, 1.9), 3 columns, 2 rows,
        // thumbnails 72 wide (the canvas is narrower than 180) and 128 tall.
        let layout = ContactSheet(columns: 3, cellWidth: 72)
        XCTAssertEqual(sheet.width, 3 * (72 + 8) + 8)
        XCTAssertEqual(sheet.height, 2 * (128 + 18 + 8) + 8)
        XCTAssertEqual(ThumbnailPicker.evenlySpaced(6, of: 20), [0, 4, 8, 11, 15, 19])
        for (cell, isRed) in [(0, true), (2, true), (3, false), (5, false)] {
            let origin = layout.cellOrigin(cell, cellHeight: 128)
            let colour = sheet[origin.x + 36, origin.y + 64]
            XCTAssertEqual(isRed ? colour.red : colour.blue, isRed ? 220 : 220, "cell \(cell)")
        }
        // Each label is the frame's number at the left and its time at the right, in DejaVu Sans,
        // below its thumbnail: cell 4 is frame 15, at 1.50 s.
        let labelRow = layout.cellOrigin(4, cellHeight: 128)
        var expected = RGBAImage(width: 72, height: 18, fill: ContactSheet.background)
        let size = layout.labelTextSize(number: "#15", time: "1.50s")
        Typeface.regular.draw("#15", x: 0, y: 2, size: size, color: ContactSheet.numberColor, on: &expected)
        Typeface.regular.draw("1.50s", x: 72 - Typeface.regular.width(of: "1.50s", size: size), y: 2, size: size, color: .white, on: &expected)
        XCTAssertGreaterThan((0..<72).flatMap { x in (0..<18).map { expected[x, $0] } }.filter { $0 == .white }.count, 5)
        for y in 0..<18 { for x in 0..<72 { XCTAssertEqual(sheet[labelRow.x + x, labelRow.y + 128 + y], expected[x, y], "(\(x), \(y))") } }
    }

    /// A render whose length is not known ahead (it ends with its last story) still gets a sheet
    /// from its first frame to its last, evenly spaced as near as the kept frames allow.
    func testContactSheetOfAnOpenEndedRenderSpansItEvenly() {
        for total in [7, 50, 99, 100, 361, 1000] {
            var picker = ThumbnailPicker(wanted: 24, planned: nil, width: 8)
            for n in 0..<total { picker.offer(n, time: Double(n) / 30, RGBAImage(width: 16, height: 16)) }
            let numbers = picker.chosen.map(\.number)
            XCTAssertEqual(numbers.first, 0, "\(total)")
            XCTAssertEqual(numbers.last, total - 1, "the last frame is on the sheet (\(total))")
            XCTAssertEqual(numbers.count, min(24, total), "\(total): \(numbers)")
            let ideal = ThumbnailPicker.evenlySpaced(24, of: total)
            // Kept frames are every stride-th (a power of two, at most total / 48): each is within
            // half a stride of its evenly spaced number.
            let stride = max(1, total / 48)
            for (chosen, wanted) in zip(numbers, ideal) {
                XCTAssertLessThanOrEqual(abs(chosen - wanted), max(1, stride / 2), "\(total): \(numbers)")
            }
            XCTAssertEqual(picker.chosen.map(\.time), numbers.map { Double($0) / 30 }, "labelled with their own times")
        }
    }

    // MARK: - Timeline

    func event(_ t: Double, _ kind: TraceEvent.Kind, _ story: String, _ player: Int) -> TraceEvent {
        TraceEvent(t: t, wall: 0, event: kind, story: story, item: 0, player: player)
    }

    func testTimelineBarsBandsAndMarksAgainstAKnownTrace() {
        let events = [event(0, .play, "a", 1), event(0.1, .firstFrame, "a", 1), event(2, .play, "b", 2), event(3, .stop, "a", 1),
                      event(4, .play, "c", 3), event(5, .play, "a", 4), event(6, .stop, "c", 3), event(7, .failed, "b", 2),
                      event(8, .stop, "b", 2), event(8, .stop, "a", 4)]
        let picture = LifecycleTimeline.render(events, maxAlive: 2, width: 900)
        let layout = LifecycleTimeline.layout(events, width: 900)
        XCTAssertEqual(layout.lanes, ["a", "b", "c"])
        let aRow = layout.barCentre("a")!, bRow = layout.barCentre("b")!, cRow = layout.barCentre("c")!
        XCTAssertEqual(picture[layout.x(1.5), aRow], LifecycleTimeline.palette[0], "player 1's bar")
        XCTAssertEqual(picture[layout.x(3.5), bRow], LifecycleTimeline.palette[1], "player 2 played normally until it failed")
        XCTAssertTrue([LifecycleTimeline.failedBar, LifecycleTimeline.failedHatch].contains(picture[layout.x(7.5), bRow]),
                      "player 2 failed at 7: its bar is hatched red from there")
        XCTAssertNotEqual(picture[layout.x(4.5), aRow], LifecycleTimeline.palette[0], "a has no player between 3 and 5")
        XCTAssertEqual(picture[layout.x(5.5), cRow], LifecycleTimeline.palette[2])
        // Bands, looked at just above a bar: one alive (none), two alive (shaded), three (red).
        let above = layout.laneTop("c")! + 3
        XCTAssertEqual(picture[layout.x(1), above], LifecycleTimeline.background, "one alive: no band")
        XCTAssertEqual(picture[layout.x(2.5), above], LifecycleTimeline.twoAliveBand, "two alive: shaded")
        XCTAssertEqual(picture[layout.x(5.5), above], LifecycleTimeline.tooManyBand, "three alive: red")
        // Marks.
        XCTAssertEqual(picture[layout.x(7), bRow], LifecycleTimeline.markColors[.failed])
        XCTAssertEqual(picture[layout.x(0.1), aRow], LifecycleTimeline.markColors[.firstFrame])
    }

    func testTimelineAxisStaysShortOnHugeTimes() {
        for end in [5.0, 59, 61, 500, 86_400, 1e12, 1e300] {
            let layout = LifecycleTimeline.layout([event(0, .play, "a", 1), event(end, .stop, "a", 1)])
            XCTAssertLessThanOrEqual(layout.duration / layout.tickStep, 20, "\(end)")
            XCTAssertEqual(layout.x(end * 10), layout.x(layout.duration * 2), "far times clamp just off the axis")
        }
        XCTAssertEqual(LifecycleTimeline.layout([event(0, .play, "a", 1), event(30, .stop, "a", 1)]).tickStep, 5)
        let picture = LifecycleTimeline.render([event(0, .play, "a", 1), event(1e300, .stop, "a", 1)])
        XCTAssertEqual(picture.width, 1200)
    }

    func testTimelineReadsATraceFile() throws {
        let text = events().map(\.jsonLine).joined(separator: "\n")
        XCTAssertEqual(LifecycleTimeline.events(fromJSONLines: text + "\nnot json\n").map(\.event), [.play, .stop])
    }

    func events() -> [TraceEvent] { [event(0, .play, "a", 1), event(1, .stop, "a", 1)] }
}
