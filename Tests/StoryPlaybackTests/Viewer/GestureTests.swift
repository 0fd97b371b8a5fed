import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// Interactive transitions (#15): the release rule, the spring, pull to dismiss, the backdrop.
final class GestureTests: XCTestCase {
    /// Three one-photo stories on a 720-wide canvas (velocities at 720 wide are then canvas pixels).
    func board(_ script: String, gesture: String = "", extra: String = "") throws -> Storyboard {
        try Storyboard.parse("""
        {"transition": {"duration": 0.4}, \(gesture.isEmpty ? "" : "\"gesture\": \(gesture),") \(extra)
         "stories": [{"id": "s0", "items": [{"uri": "a.png"}]}, {"id": "s1", "items": [{"uri": "b.png"}]},
                     {"id": "s2", "items": [{"uri": "c.png"}]}],
         "script": [\(script)]}
        """)
    }

    /// Drags to `to` (over 0.1 s, at 1 s), released 0.3 s later with `velocity`, run to rest.
    func released(to: Double, velocity: Double?, gesture: String = "") throws -> ViewerNavigator {
        let flick = velocity.map { ", \"release_velocity\": \($0)" } ?? ""
        var nav = ViewerNavigator(storyboard: try board("""
        {"at": 1, "action": "drag", "to": \(to), "over": 0.1\(flick)}, {"at": 1.4, "action": "release"}
        """, gesture: gesture))
        nav.advance(to: 5)
        return nav
    }

    // MARK: - The release rule

    func testAFlickAt900PixelsASecondFinishesFromProgress03() throws {
        let nav = try released(to: 0.3, velocity: 900)
        XCTAssertEqual(nav.releases.map(\.outcome), [.finish])
        XCTAssertEqual(nav.releases[0].progress, 0.3, accuracy: 1e-9)
        XCTAssertEqual(nav.releases[0].velocity, 900, accuracy: 1e-9)
        XCTAssertEqual(nav.settledPage, 1)
        XCTAssertEqual(nav.pageOffset, 1)
    }

    func testABackwardFlickCancelsFromProgress06() throws {
        let nav = try released(to: 0.6, velocity: -900)
        XCTAssertEqual(nav.releases.map(\.outcome), [.cancel])
        XCTAssertEqual(nav.settledPage, 0)
        XCTAssertEqual(nav.pageOffset, 0)
    }

    func testProgress045WithoutAFlickCancelsAnd05Finishes() throws {
        let short = try released(to: 0.45, velocity: nil)
        XCTAssertEqual(short.releases.map(\.outcome), [.cancel])
        XCTAssertEqual(short.releases[0].velocity, 0, accuracy: 1e-9, "the finger was still for its last 0.1 s")
        XCTAssertEqual(short.settledPage, 0)
        let half = try released(to: 0.5, velocity: nil)
        XCTAssertEqual(half.releases.map(\.outcome), [.finish])
        XCTAssertEqual(half.settledPage, 1)
        // Past half a page, a slow movement back does not cancel; a flick back does.
        XCTAssertEqual(try released(to: 0.6, velocity: -400).releases.map(\.outcome), [.finish])
        XCTAssertEqual(try released(to: 0.6, velocity: -600).releases.map(\.outcome), [.cancel])
    }

    /// While a drag's finger is down, a tap or a pull is ignored with a notice, as a swipe is.
    /// Found by an audit of hand-written boards: a tap landed the drag without a word, and the
    /// release after it was then reported as having nothing to release.
    func testATapOrAPullDuringADragIsIgnoredAndTheReleaseFinishesIt() throws {
        for (gesture, json) in [("tap", #"{"at": 1.2, "action": "tap", "x": 0.9}"#),
                                ("pull", #"{"at": 1.2, "action": "pull", "to": 0.5, "over": 0.1}"#),
                                ("swipe next", #"{"at": 1.2, "action": "swipe", "direction": "next"}"#)] {
            var nav = ViewerNavigator(storyboard: try board("""
            {"at": 1, "action": "drag", "to": 0.6, "over": 0.1}, \(json), {"at": 1.4, "action": "release"}
            """))
            nav.advance(to: 5)
            XCTAssertEqual(nav.notices, ["ignored \(gesture) at 1.2 s: a drag is in progress"], gesture)
            XCTAssertEqual(nav.releases.map(\.outcome), [.finish], "\(gesture): the drag is released")
            XCTAssertEqual(nav.settledPage, 1, gesture)
        }
    }

    func testTheThresholdsAreStoryboardKeys() throws {
        let gesture = #"{"finish_progress": 0.3, "flick_velocity": 1000}"#
        XCTAssertEqual(try released(to: 0.35, velocity: nil, gesture: gesture).releases.map(\.outcome), [.finish])
        XCTAssertEqual(try released(to: 0.2, velocity: 900, gesture: gesture).releases.map(\.outcome), [.cancel])
        XCTAssertEqual(try released(to: 0.2, velocity: 1100, gesture: gesture).releases.map(\.outcome), [.finish])
    }

    /// The finger's velocity is that of its last 0.1 s: a drag still moving when released is a flick.
    func testTheMeasuredVelocityIsTheLastTenthOfASecond() throws {
        var nav = ViewerNavigator(storyboard: try board("""
        {"at": 1, "action": "drag", "to": 0.3, "over": 0.3}, {"at": 1.3, "action": "release"}
        """))
        nav.advance(to: 1.3)
        XCTAssertEqual(nav.releases.first?.velocity ?? 0, 720, accuracy: 1e-6, "0.1 page in 0.1 s, 720 px a page")
        XCTAssertEqual(nav.releases.map(\.outcome), [.finish], "faster than 500 px/s forward")
    }

    /// The flick threshold is 500 px/s at 720 wide, scaled with the canvas: on a 360-wide canvas
    /// a page is 360 px, and the same page speed is the same flick.
    func testVelocitiesScaleWithTheCanvas() throws {
        let narrow = #""canvas": {"width": 360, "height": 640},"#
        var nav = ViewerNavigator(storyboard: try board("""
        {"at": 1, "action": "drag", "to": 0.3, "over": 0.3}, {"at": 1.3, "action": "release"}
        """, extra: narrow))
        nav.advance(to: 1.3)
        XCTAssertEqual(nav.releases.first?.velocity ?? 0, 720, accuracy: 1e-6, "in px/s at 720 wide")
    }

    // MARK: - The completion

    /// The completion starts where the finger left, at the finger's speed: no jump, no restart.
    func testTheSpringStartsWhereTheFingerLeftAtItsSpeed() throws {
        var nav = ViewerNavigator(storyboard: try board("""
        {"at": 1, "action": "drag", "to": 0.3, "over": 0.1, "release_velocity": 900}, {"at": 1.4, "action": "release"}
        """))
        nav.advance(to: 1.4)
        XCTAssertEqual(nav.pageOffset, 0.3, accuracy: 1e-9)
        nav.advance(to: 1.40001)
        XCTAssertEqual((nav.pageOffset - 0.3) / 0.00001, 900.0 / 720, accuracy: 0.01, "pages per second at release")
        XCTAssertTrue(nav.isMoving)
    }

    /// Damped critically or more, the spring never passes the end page, however hard the flick;
    /// under-damped it does (so this test can tell them apart).
    func testTheSpringDoesNotOvershootWhenDampingIsAtLeastOne() throws {
        for (damping, overshoots) in [(1.0, false), (1.6, false), (0.98, false), (0.4, true)] {
            for velocity in [0.0, 900, 5000, 30_000] {
                var nav = ViewerNavigator(storyboard: try board("""
                {"at": 1, "action": "drag", "to": 0.6, "over": 0.1, "release_velocity": \(velocity)}, {"at": 1.2, "action": "release"}
                """, gesture: #"{"spring": {"response": 0.25, "damping": \#(damping)}}"#))
                var highest = 0.0, t = 1.2
                while t < 4 {
                    t += 0.001
                    nav.advance(to: t)
                    highest = max(highest, nav.pageOffset)
                }
                XCTAssertEqual(nav.pageOffset, 1, "damping \(damping), \(velocity) px/s comes to rest on the next page")
                XCTAssertFalse(nav.isMoving)
                if overshoots {
                    if velocity >= 5000 { XCTAssertGreaterThan(highest, 1, "damping \(damping) bounces") }
                } else if damping >= 1 {
                    XCTAssertLessThanOrEqual(highest, 1, "damping \(damping), \(velocity) px/s")
                }
            }
        }
    }

    func testTheSpringClosedFormsAgreeWithTheirEquation() {
        // x'' = −ω²x − 2ζωx', checked by finite differences, for the three regimes.
        let omega = 2 * Double.pi / 0.25
        for zeta in [0.5, 1.0, 1.7] {
            let h = 1e-5
            for t in [0.01, 0.05, 0.1] {
                let at = { (s: Double) in GestureCompletion.displacement(x0: -0.4, v0: 0.5, omega: omega, damping: zeta, t: s) }
                let (x, v) = at(t)
                let acceleration = (at(t + h).v - at(t - h).v) / (2 * h)
                XCTAssertEqual(acceleration, -omega * omega * x - 2 * zeta * omega * v, accuracy: 1e-3 * omega * omega, "ζ \(zeta), t \(t)")
                XCTAssertEqual(v, (at(t + h).x - at(t - h).x) / (2 * h), accuracy: 1e-4, "ζ \(zeta), t \(t)")
            }
            XCTAssertEqual(GestureCompletion.displacement(x0: -0.4, v0: 0.5, omega: omega, damping: zeta, t: 0).x, -0.4, accuracy: 1e-12)
        }
    }

    /// `curve: "ease_out"` eases over the remaining distance in the transition's time for it, and
    /// finishing and cancelling use it alike.
    func testEaseOutCoversTheRemainingDistance() throws {
        for (to, end) in [(0.6, 1.0), (0.3, 0.0)] {
            var nav = ViewerNavigator(storyboard: try board("""
            {"at": 1, "action": "drag", "to": \(to), "over": 0.1}, {"at": 1.2, "action": "release"}
            """, gesture: #"{"curve": "ease_out"}"#))
            let remaining = abs(end - to)
            nav.advance(to: 1.2 + 0.4 * remaining / 2)
            XCTAssertEqual(nav.pageOffset, to + (end - to) * 0.875, accuracy: 1e-9, "1 − (1 − ½)³ of the way")
            nav.advance(to: 1.2 + 0.4 * remaining)
            XCTAssertEqual(nav.pageOffset, end)
        }
    }

    // MARK: - Pull to dismiss

    func testAShortPullGoesBackAndAFarOneCloses() throws {
        var nav = ViewerNavigator(storyboard: try board("""
        {"at": 1, "action": "pull", "to": 0.3, "over": 0.3}, {"at": 1.5, "action": "release"},
        {"at": 3, "action": "pull", "to": 0.6, "over": 0.3}, {"at": 3.5, "action": "release"}
        """))
        nav.advance(to: 1.15)
        XCTAssertEqual(nav.pullProgress(at: 1.15), 0.15, accuracy: 1e-9, "the story follows the finger")
        XCTAssertEqual(nav.pullPause?.start, 1)
        nav.advance(to: 1.5)
        XCTAssertEqual(nav.releases.map(\.outcome), [.cancel])
        XCTAssertEqual(nav.releases[0].action, .pull)
        let back = try XCTUnwrap(nav.pullPause?.end)
        XCTAssertGreaterThan(back, 1.5)
        XCTAssertLessThan(back, 2.5)
        nav.advance(to: back)
        XCTAssertFalse(nav.isPulled)
        XCTAssertNil(nav.bubbleTransform(at: back, width: 720, height: 1280), "back to full screen")
        nav.advance(to: 3.5)
        XCTAssertEqual(nav.releases.map(\.outcome), [.cancel, .finish])
        XCTAssertFalse(nav.isFinished)
        nav.advance(to: 5)
        XCTAssertTrue(nav.isFinished, "a finished pull ends the render as dismiss does")
        let closed = try XCTUnwrap(nav.bubbleTransform(at: 5, width: 720, height: 1280))
        XCTAssertEqual(closed.centre.x, 360, accuracy: 1e-6, "into the centre without present.from")
        XCTAssertEqual(closed.centre.y, 640, accuracy: 1e-6)
        XCTAssertEqual(closed.maskRadius, 0.08 * 720, accuracy: 1e-6)
        XCTAssertEqual(nav.openness(at: 5), 0)
    }

    func testAPulledStoryShrinksFollowsTheFingerAndRoundsItsCorners() throws {
        let nav = ViewerNavigator(storyboard: try board("", extra: #""present": {"from": [0.2, 0.1, 0.1]},"#))
        let half = nav.pulledTransform(progress: 0.5, width: 720, height: 1280)
        XCTAssertEqual(half.scale, 0.95, accuracy: 1e-12)
        XCTAssertEqual(half.centre.y, 640 + 640, accuracy: 1e-9)
        XCTAssertEqual(half.cornerRadius, 0.5 * 72, accuracy: 1e-9)
        XCTAssertEqual(nav.pulledTransform(progress: 1, width: 720, height: 1280).cornerRadius, 72, accuracy: 1e-9,
                       "up to the bubble's radius")
    }
}
