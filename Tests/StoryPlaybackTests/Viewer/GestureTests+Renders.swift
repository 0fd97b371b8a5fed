import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// The interactive transitions in whole renders: pixels, the lifecycle, the storyboard and trace.
extension GestureTests {
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
        let render = StoryRenderer(storyboard: board, options: options)
        let summary = try render.run()
        return (summary, render.trace.events, out)
    }

    func frame(_ out: String, _ n: Int) throws -> RGBAImage {
        try RGBAImage(contentsOfPNG: StoryRenderer.framePath(out, n))
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

// MARK: - Gestures the render never reaches

extension GestureTests {
    /// A gesture timed after the last frame (a typo: 100 for 10.0) or after a dismiss ended the
    /// render is not performed, and the summary says so, as it says an ignored gesture. One
    /// within the render is not named.
    func testGesturesAfterTheLastFrameAreNoticed() throws {
        let folder = ScratchFolder()
        _ = try picture(folder, "red.png", width: 36, height: 64, RGBAColor(red: 255, green: 0, blue: 0))
        let (late, _, _) = try renderFrames("""
        {"canvas": {"width": 36, "height": 64, "fps": 10},
         "stories": [{"id": "a", "items": [{"uri": "red.png", "duration": 1}]}],
         "script": [{"at": 0.5, "action": "hold", "for": 0.1}, {"at": 100, "action": "tap", "side": "right"}]}
        """, folder: folder)
        XCTAssertEqual(late.notices.filter { $0.contains("not performed") },
                       ["the tap at 100 s was not performed: the render's last frame is at 1 s"], "\(late.notices)")
        let (dismissed, _, _) = try renderFrames("""
        {"canvas": {"width": 36, "height": 64, "fps": 10},
         "stories": [{"id": "a", "items": [{"uri": "red.png", "duration": 2}]}],
         "script": [{"at": 0.5, "action": "dismiss"}, {"at": 1.5, "action": "tap", "side": "right"}]}
        """, folder: folder)
        XCTAssertTrue(dismissed.notices.contains { $0.hasPrefix("the tap at 1.5 s was not performed") }, "\(dismissed.notices)")
        XCTAssertFalse(dismissed.notices.contains { $0.contains("dismiss at") }, "\(dismissed.notices)")
    }
}
