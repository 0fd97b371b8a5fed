import Compositor
import Foundation
@testable import StoryPlayer
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

    // MARK: - Frames

    /// A solid-colour picture file.
    func picture(_ folder: ScratchFolder, _ name: String, width: Int, height: Int, _ color: RGBAColor) throws -> String {
        let path = folder.file(name)
        try RGBAImage(width: width, height: height, fill: color).writePNG(to: path)
        return path
    }

    /// A checkerboard of 8-pixel squares: plenty of local contrast for a blur to remove.
    func checkerboard(_ folder: ScratchFolder, width: Int, height: Int) throws -> (String, RGBAImage) {
        var image = RGBAImage(width: width, height: height, fill: RGBAColor(red: 30, green: 30, blue: 40))
        for y in 0..<height { for x in 0..<width where (x / 8 + y / 8) % 2 == 0 { image[x, y] = RGBAColor(red: 230, green: 220, blue: 200) } }
        let path = folder.file("home.png")
        try image.writePNG(to: path)
        return (path, image)
    }

    func renderFrames(_ json: String, folder: ScratchFolder) throws -> (RenderSummary, [TraceEvent], String) {
        let board = try Storyboard.parse(json, folder: folder.path)
        let out = folder.file("out")
        var options = RenderOptions(outputFolder: out)
        options.overlay = false
        let render = StoryRender(storyboard: board, options: options)
        let summary = try render.run()
        return (summary, render.trace.events, out)
    }

    func frame(_ out: String, _ n: Int) throws -> RGBAImage {
        try RGBAImage(contentsOfPNG: StoryRender.framePath(out, n))
    }

    /// At p = 0.5 the story is 0.95 of its size, centred across, its centre half a screen lower.
    func testAtHalfAPullTheStoryHasTheExpectedBoundingBox() throws {
        let folder = ScratchFolder()
        _ = try picture(folder, "story.png", width: 144, height: 256, RGBAColor(red: 240, green: 60, blue: 60))
        let (_, _, out) = try renderFrames("""
        {"canvas": {"width": 144, "height": 256, "fps": 10, "background": "#000000"}, "duration": 1.0,
         "stories": [{"id": "a", "items": [{"uri": "story.png"}]}],
         "script": [{"at": 0.5, "action": "pull", "to": 0.5, "over": 0.2}]}
        """, folder: folder)
        let image = try frame(out, 8)
        var left = Int.max, right = -1, top = Int.max, bottom = -1
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y].red > 120 {
                left = min(left, x); right = max(right, x); top = min(top, y); bottom = max(bottom, y)
            }
        }
        // 144 × 0.95 = 136.8 wide from 3.6; the top at 128 + 128 − 0.95 × 128 = 134.4; below the screen.
        XCTAssertEqual(left, 4, accuracy: 1)
        XCTAssertEqual(right, 139, accuracy: 1)
        XCTAssertEqual(top, 134, accuracy: 1)
        XCTAssertEqual(bottom, 255)
        XCTAssertEqual(image[72, 60], .black, "above the story: the canvas background")
        XCTAssertEqual(try frame(out, 4)[72, 60].red, 240, "before the pull, the story fills the screen")
    }

    /// The backdrop loses local contrast as the viewer covers it more, and is the plain picture
    /// when the viewer is closed (at the first frame of `present`, and after a finished pull).
    func testTheBackdropBlursAndDimsWithOpenness() throws {
        let folder = ScratchFolder()
        _ = try picture(folder, "story.png", width: 144, height: 256, RGBAColor(red: 240, green: 60, blue: 60))
        let (_, plain) = try checkerboard(folder, width: 144, height: 256)
        let (summary, events, out) = try renderFrames("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 3.5,
         "present": {"from": [0.5, 0.1, 0.05], "duration": 0.3},
         "backdrop": {"picture": "home.png", "blur": 24, "dim": 0.6},
         "stories": [{"id": "a", "items": [{"uri": "story.png"}]}],
         "script": [{"at": 1.0, "action": "pull", "to": 0.8, "over": 0.8}, {"at": 2.0, "action": "release"}]}
        """, folder: folder)
        // The top strip shows the backdrop at p = 0.2, 0.5 and 0.8 (openness 0.8, 0.5, 0.2).
        let strip = { (image: RGBAImage) in image.brightnessVariance(x: 0, y: 0, width: 144, height: 24) }
        let variances = try [12, 15, 18].map { strip(try frame(out, $0)) }
        XCTAssertLessThan(variances[0], variances[1])
        XCTAssertLessThan(variances[1], variances[2])
        XCTAssertLessThan(variances[2], strip(plain))
        XCTAssertLessThan(variances[0], strip(plain) / 4, "well blurred and dimmed when mostly open")
        // Closed: the plain backdrop, away from the bubble.
        for n in [0, 34] {
            let image = try frame(out, n)
            for y in 200..<256 { for x in 0..<144 { XCTAssertEqual(image[x, y], plain[x, y], "frame \(n) (\(x), \(y))") } }
        }
        XCTAssertEqual(events.of(.gesture).map(\.outcome), ["finish"])
        XCTAssertGreaterThan(summary.stageSeconds[.blur] ?? 0, 0, "the blur's cost is in stages_ms")
        XCTAssertTrue(summary.json.contains("\"blur\": "))
    }

    // MARK: - Lifecycle

    /// A pull pauses the story's media; a cancelled pull resumes it where it was: the photo ends
    /// later by exactly the time the story was away.
    func testACancelledPullPausesAndResumesTheMedia() throws {
        let folder = ScratchFolder()
        _ = try picture(folder, "a.png", width: 36, height: 64, RGBAColor(red: 200, green: 0, blue: 0))
        _ = try picture(folder, "b.png", width: 36, height: 64, RGBAColor(red: 0, green: 200, blue: 0))
        let json = """
        {"canvas": {"width": 36, "height": 64, "fps": 100}, "duration": 4,
         "stories": [{"id": "a", "items": [{"uri": "a.png", "duration": 2}]}, {"id": "b", "items": [{"uri": "b.png"}]}],
         "script": [{"at": 0.5, "action": "pull", "to": 0.3, "over": 0.2}, {"at": 0.8, "action": "release"}]}
        """
        let board = try Storyboard.parse(json, folder: folder.path)
        var nav = ViewerNavigator(storyboard: board)
        nav.advance(to: 0.8)
        let away = try XCTUnwrap(nav.pullPause?.end) - 0.5
        let (_, events, _) = try renderFrames(json, folder: folder)
        let ended = try XCTUnwrap(events.of(.ended, story: "a").first)
        XCTAssertEqual(ended.t, 2 + away, accuracy: 0.011)
        XCTAssertEqual(events.of(.play, story: "a").count, 1)
        XCTAssertEqual(events.of(.gesture).map(\.outcome), ["cancel"])
    }

    /// Acceptance: a cancelled pull, a finished flick and a finished pull. The trace passes
    /// `check`, says cancel, finish, finish, and the render ends with the closing.
    func testACancelledPullAFlickAndAFinishedPull() throws {
        let folder = ScratchFolder()
        let (summary, events, out) = try renderFrames("""
        {"canvas": {"width": 36, "height": 64, "fps": 20},
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.path("counter.mp4"))", "duration": 5}]},
                     {"id": "b", "items": [{"uri": "\(Fixture.path("odd.png"))", "duration": 5}]},
                     {"id": "c", "items": [{"uri": "\(Fixture.path("odd.png"))"}]}],
         "script": [{"at": 0.3, "action": "pull", "to": 0.3, "over": 0.2}, {"at": 0.7, "action": "release"},
                    {"at": 1.5, "action": "drag", "to": 0.2, "over": 0.1, "release_velocity": 1200}, {"at": 1.65, "action": "release"},
                    {"at": 2.5, "action": "pull", "to": 0.4, "over": 0.2}, {"at": 2.75, "action": "release"}]}
        """, folder: folder)
        let gestures = events.of(.gesture)
        XCTAssertEqual(gestures.map(\.outcome), ["cancel", "finish", "finish"])
        XCTAssertEqual(gestures.map(\.action), ["pull", "drag", "pull"])
        XCTAssertEqual(gestures.map(\.story), ["a", "a", "b"])
        XCTAssertEqual(gestures[1].velocity ?? 0, 1200, accuracy: 1e-9)
        let text = try String(contentsOfFile: out + "/lifecycle.jsonl", encoding: .utf8)
        XCTAssertEqual(TraceCheck.check(text), [])
        // The cancelled pull left a alone: one play, stopped only once the flick landed on b.
        XCTAssertEqual(events.of(.play, story: "a").count, 1)
        let aStop = try XCTUnwrap(events.of(.stop, story: "a").first)
        XCTAssertGreaterThan(aStop.t, 1.65)
        // The finished pull ends the render once b has closed into its bubble; every player stops.
        let last = try XCTUnwrap(events.last(where: { $0.event == .stop }))
        XCTAssertGreaterThan(last.t, 2.75)
        XCTAssertLessThan(last.t, 4)
        XCTAssertEqual(Double(summary.frames) / 20, last.t, accuracy: 0.051)
        XCTAssertTrue(events.filter { $0.event == .play }.allSatisfy { play in events.contains { $0.event == .stop && $0.player == play.player } })
    }

    // MARK: - Storyboard and trace

    func testGestureAndBackdropKeysParseWithTheirDefaults() throws {
        let plain = try board("")
        XCTAssertEqual(plain.gesture, GestureSettings(finishProgress: 0.5, flickVelocity: 500, springResponse: 0.25,
                                                      springDamping: 0.98, curve: .spring))
        XCTAssertNil(plain.backdrop)
        let full = try board(#"{"at": 1, "action": "pull", "to": 0.4, "over": 0.3}"#,
                             gesture: #"{"finish_progress": 0.4, "flick_velocity": 800, "spring": {"response": 0.3, "damping": 1}, "curve": "ease_out"}"#,
                             extra: #""backdrop": {"picture": "home.png", "blur": 12, "dim": 0.5},"#)
        XCTAssertEqual(full.gesture, GestureSettings(finishProgress: 0.4, flickVelocity: 800, springResponse: 0.3,
                                                     springDamping: 1, curve: .easeOut))
        XCTAssertEqual(full.backdrop?.blur, 12)
        XCTAssertEqual(full.backdrop?.dim, 0.5)
        XCTAssertTrue(full.backdrop?.picture?.location.hasSuffix("home.png") ?? false)
        XCTAssertEqual(full.script[0].gesture, .pull(progress: 0.4, seconds: 0.3))
        XCTAssertEqual(try board(#""#, extra: #""backdrop": {},"#).backdrop, Backdrop())
        for (json, message) in [
            (#"{"spring": {"stiffness": 3}}"#, "gesture.spring.stiffness: unknown key"),
            (#"{"curve": "linear"}"#, "gesture.curve"),
            (#"{"finish_progress": 2}"#, "gesture.finish_progress: 2 is out of range"),
        ] {
            XCTAssertThrowsError(try board("", gesture: json)) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
        XCTAssertThrowsError(try board(#"{"at": 1, "action": "pull", "to": 1.5}"#)) { error in
            XCTAssertTrue("\(error)".contains("script[0].to"), "\(error)")
        }
    }

    func testGestureEventsRoundTripAndAreNotPlayerEvents() throws {
        var event = TraceEvent(t: 1.5, wall: 0.01, event: .gesture, story: "a")
        event.action = "drag"
        event.outcome = "finish"
        event.progress = 0.3
        event.velocity = -900
        XCTAssertEqual(event.jsonLine,
                       #"{"t": 1.5, "wall": 0.01, "event": "gesture", "story": "a", "action": "drag", "outcome": "finish", "progress": 0.3, "velocity": -900}"#)
        XCTAssertEqual(try TraceEvent(jsonLine: event.jsonLine), event)
        XCTAssertEqual(TraceCheck.check(event.jsonLine), [], "no player id needed")
    }
}
