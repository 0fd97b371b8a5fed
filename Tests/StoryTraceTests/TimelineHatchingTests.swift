import Compositor
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Issue #28, item 23: a player that failed after playing is hatched only from its failure on,
/// and its label stays readable where it lies on the hatching. Read back from the picture's pixels.
final class TimelineHatchingTests: XCTestCase {
    func event(_ t: Double, _ kind: TraceEvent.Kind, _ story: String, _ player: Int) -> TraceEvent {
        TraceEvent(t: t, wall: 0, event: kind, story: story, item: 0, player: player)
    }

    let hatchColours: Set<RGBAColor> = [LifecycleTimeline.failedBar, LifecycleTimeline.failedHatch]

    func testTheBarIsHatchedOnlyFromTheFailureOn() {
        let events = [event(0, .play, "broken", 1), event(2, .failed, "broken", 1), event(4, .stop, "broken", 1)]
        let picture = LifecycleTimeline.render(events, width: 900)
        let layout = LifecycleTimeline.layout(events, width: 900)
        let centre = layout.barCentre("broken")!
        func colours(_ from: Double, _ to: Double) -> Set<RGBAColor> {
            Set((layout.x(from)..<layout.x(to)).flatMap { x in (centre - 3...centre + 3).map { picture[x, $0] } })
        }
        // Past the label ("#1" near the start) and short of the failure mark.
        let before = colours(0.5, 1.9)
        XCTAssertEqual(before, [LifecycleTimeline.palette[0]], "played normally: the story's bar colour, no stripes")
        XCTAssertTrue(colours(2.1, 3.9).isSuperset(of: hatchColours), "hatched from the failure on")
        XCTAssertTrue(colours(2.1, 3.9).isSubset(of: hatchColours), "nothing but hatching after the failure")
    }

    /// A player that fails at once has its label on the hatching: on a plate, so every pixel behind
    /// the label's ink contrasts with the white ink by at least WCAG's 4.5:1, and no stripe is there.
    func testALabelOnTheHatchingIsReadable() throws {
        let events = [event(0, .play, "broken", 2), event(0.05, .failed, "broken", 2), event(4, .stop, "broken", 2)]
        let picture = LifecycleTimeline.render(events, width: 900)
        let layout = LifecycleTimeline.layout(events, width: 900)
        let laneTop = layout.laneTop("broken")!
        let label = try XCTUnwrap(findLabel("#2", in: picture, laneTop: laneTop, laneHeight: layout.laneHeight, from: layout.x(0), to: layout.x(4)),
                                  "the label is drawn, whole")
        var behind: Set<RGBAColor> = []
        for y in label.box.top - 1...label.box.bottom + 1 {
            for x in label.box.left - 1...label.box.right + 1 where label.coverage(x, y) == 0 { behind.insert(picture[x, y]) }
        }
        XCTAssertFalse(behind.contains(LifecycleTimeline.failedHatch), "no stripe behind the label")
        for colour in behind {
            XCTAssertGreaterThanOrEqual(contrast(.white, colour), 4.5, "white on \(colour)")
        }
        // And the bar is still hatched beside the label: it reads as failed.
        let afterLabel = (label.box.right + 8..<layout.x(3.9)).map { picture[$0, layout.barCentre("broken")!] }
        XCTAssertTrue(Set(afterLabel).isSuperset(of: hatchColours))
    }

    // MARK: - Reading the label back

    struct FoundLabel {
        /// The ink's bounding box in the picture, inclusive.
        let box: (left: Int, top: Int, right: Int, bottom: Int)
        /// The ink's coverage (0...255) at a picture pixel.
        let coverage: (Int, Int) -> UInt8
    }

    /// Where `text` is drawn in white on the bar of the lane at `laneTop`: the label drawn alone,
    /// white on black at the same height, slid along the bar until every fully inked pixel of it
    /// is white in the picture.
    func findLabel(_ text: String, in picture: RGBAImage, laneTop: Int, laneHeight: Int, from x0: Int, to x1: Int) -> FoundLabel? {
        let size = LifecycleTimeline.barTextSize, face = Typeface.regular
        let lineTop = face.metrics(size: size).lineTop(centredIn: laneHeight, at: laneTop)
        let width = face.width(of: text, size: size) + 4
        var alone = RGBAImage(width: width, height: picture.height, fill: .black)
        face.draw(text, x: 0, y: lineTop, size: size, color: .white, on: &alone)
        let inked = (0..<alone.height).flatMap { y in (0..<width).compactMap { alone[$0, y].red > 0 ? (x: $0, y: y) : nil } }
        let full = inked.filter { alone[$0.x, $0.y].red == 255 }
        guard !full.isEmpty else { return nil }
        for origin in x0..<x1 where full.allSatisfy({ picture[origin + $0.x, $0.y] == .white }) {
            let box = (left: origin + inked.map(\.x).min()!, top: inked.map(\.y).min()!,
                       right: origin + inked.map(\.x).max()!, bottom: inked.map(\.y).max()!)
            return FoundLabel(box: box) { x, y in
                let ax = x - origin
                return ax >= 0 && ax < width && y >= 0 && y < alone.height ? alone[ax, y].red : 0
            }
        }
        return nil
    }

    /// WCAG 2 contrast ratio of two opaque colours.
    func contrast(_ a: RGBAColor, _ b: RGBAColor) -> Double {
        func luminance(_ c: RGBAColor) -> Double {
            func channel(_ v: UInt8) -> Double {
                let s = Double(v) / 255
                return s <= 0.03928 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channel(c.red) + 0.7152 * channel(c.green) + 0.0722 * channel(c.blue)
        }
        let (hi, lo) = (max(luminance(a), luminance(b)), min(luminance(a), luminance(b)))
        return (hi + 0.05) / (lo + 0.05)
    }
}
