import Compositor
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// The timeline as a reader needs it (issue #16, item 20): ids as the storyboard spells them, a
/// legend, failed players that stand out, axis labels that never run into each other.
final class TimelinePictureTests: XCTestCase {
    func event(_ t: Double, _ kind: TraceEvent.Kind, _ story: String, _ player: Int) -> TraceEvent {
        TraceEvent(t: t, wall: 0, event: kind, story: story, item: 0, player: player)
    }

    /// The lane names' region: left of the axis, the height of the lanes.
    func laneNames(_ picture: RGBAImage, _ layout: LifecycleTimeline.Layout, _ story: String) -> [RGBAColor] {
        let top = layout.laneTop(story)!
        return (top..<top + layout.laneHeight).flatMap { y in (0..<layout.left).map { picture[$0, y] } }
    }

    func testLaneNamesKeepTheirCase() {
        let events = [event(0, .play, "Beach", 1), event(1, .stop, "Beach", 1), event(1, .play, "BEACH", 2), event(2, .stop, "BEACH", 2)]
        let picture = LifecycleTimeline.render(events)
        let layout = LifecycleTimeline.layout(events)
        XCTAssertEqual(layout.lanes, ["Beach", "BEACH"])
        XCTAssertNotEqual(laneNames(picture, layout, "Beach"), laneNames(picture, layout, "BEACH"))
        XCTAssertTrue(laneNames(picture, layout, "Beach").contains { $0 != LifecycleTimeline.background }, "the name is written")
    }

    func testALegendNamesEveryColour() {
        let events = [event(0, .play, "a", 1), event(4, .stop, "a", 1)]
        let picture = LifecycleTimeline.render(events, maxAlive: 3, width: 1200)
        let layout = LifecycleTimeline.layout(events, maxAlive: 3, width: 1200)
        XCTAssertEqual(layout.legend.map(\.text), ["player", "failed player", "first picture", "ended", "failed", "reconnect",
                                                   "2 to 3 alive", "more than 3 alive"])
        XCTAssertEqual(picture.height, layout.height)
        for entry in layout.legend {
            XCTAssertLessThan(entry.y + 18, picture.height, "\(entry.text) is inside the picture")
            let probe = picture[entry.swatchCentre.x, entry.swatchCentre.y]
            switch entry.swatch {
            case .bar(let color), .mark(let color), .band(let color): XCTAssertEqual(probe, color, entry.text)
            case .failedBar: XCTAssertTrue([LifecycleTimeline.failedBar, LifecycleTimeline.failedHatch].contains(probe), entry.text)
            }
            let textStart = entry.x + 21
            let written = (entry.y..<entry.y + 18).contains { y in (textStart..<textStart + 20).contains { picture[$0, y] != LifecycleTimeline.background } }
            XCTAssertTrue(written, "\(entry.text) is written beside its swatch")
        }
        // On a narrow picture the legend wraps into rows, still inside it.
        let narrow = LifecycleTimeline.layout(events, width: 300)
        XCTAssertGreaterThan(Set(narrow.legend.map(\.y)).count, 1)
        XCTAssertTrue(narrow.legend.allSatisfy { $0.x + 16 < 300 })
    }

    func testAFailedPlayerIsDrawnDistinctly() {
        let events = [event(0, .play, "ok", 1), event(0, .play, "broken", 2), event(3, .failed, "broken", 2),
                      event(4, .stop, "broken", 2), event(4, .stop, "ok", 1)]
        let picture = LifecycleTimeline.render(events, width: 900)
        let layout = LifecycleTimeline.layout(events, width: 900)
        func colours(_ story: String) -> Set<RGBAColor> {
            let centre = layout.barCentre(story)!
            return Set((layout.x(3.2)..<layout.x(3.9)).flatMap { x in (centre - 3...centre + 3).map { picture[x, $0] } })
        }
        XCTAssertTrue(colours("broken").isSuperset(of: [LifecycleTimeline.failedBar, LifecycleTimeline.failedHatch]), "hatched red after it failed")
        XCTAssertTrue(colours("ok").isDisjoint(with: [LifecycleTimeline.failedBar, LifecycleTimeline.failedHatch]))
        XCTAssertTrue(colours("ok").contains(LifecycleTimeline.palette[0]))
    }

    /// Labels are measured in the font they are drawn in; at small widths the step grows until
    /// they leave a gap, and every one is inside the picture and drawn where the layout says.
    func testAxisLabelsThinOutAtSmallWidths() {
        let events = [event(0, .play, "a", 1), event(19.5, .stop, "a", 1)]
        var counts: [Int] = []
        for width in [300, 450, 700, 1200, 3000] {
            let layout = LifecycleTimeline.layout(events, width: width)
            let labels = layout.axisLabels
            counts.append(labels.count)
            XCTAssertGreaterThanOrEqual(labels.count, 2, "\(width)")
            for (left, right) in zip(labels, labels.dropFirst()) {
                XCTAssertLessThanOrEqual(left.x + left.width + LifecycleTimeline.axisLabelGap, right.x, "\(width): \(left.text) runs into \(right.text)")
            }
            XCTAssertTrue(labels.allSatisfy { $0.x >= 0 && $0.x + $0.width <= width }, "\(width)")
            let picture = LifecycleTimeline.render(events, width: width)
            for label in labels {
                let inked = (label.x..<label.x + label.width).contains { x in (4..<20).contains { picture[x, $0] != LifecycleTimeline.background } }
                XCTAssertTrue(inked, "\(width): \(label.text) is drawn")
            }
        }
        XCTAssertEqual(counts.last, 20, "wide: a label every second, 0 s to 19 s")
        XCTAssertLessThan(counts.first!, 8, "narrow: fewer labels")
        XCTAssertEqual(counts, counts.sorted(), "never more labels on a narrower picture")
    }
}
