import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// The behaviours a story-viewer user knows, each pinned with rendered pixels and trace events.
final class ViewerBehaviourTests: XCTestCase {
    let red = RGBAColor(red: 220, green: 30, blue: 30)
    let blue = RGBAColor(red: 30, green: 40, blue: 220)
    let black = RGBAColor(red: 0, green: 0, blue: 0)

    /// A scratch folder with solid-colour photos to build storyboards from.
    func folderWithPhotos() throws -> ScratchFolder {
        let folder = ScratchFolder()
        try RGBAImage(width: 36, height: 64, fill: red).writePNG(to: folder.file("red.png"))
        try RGBAImage(width: 36, height: 64, fill: blue).writePNG(to: folder.file("blue.png"))
        try RGBAImage(width: 36, height: 64, fill: black).writePNG(to: folder.file("black.png"))
        try RGBAImage(width: 36, height: 64, fill: RGBAColor(red: 250, green: 140, blue: 20)).writePNG(to: folder.file("orange.png"))
        try FileManager.default.copyItem(atPath: Fixture.path("counter.mp4"), toPath: folder.file("counter.mp4"))
        return folder
    }

    func frame(_ folder: ScratchFolder, _ n: Int) throws -> RGBAImage {
        try RGBAImage(contentsOfPNG: StoryRenderer.framePath(folder.path, n))
    }

    // MARK: - Progress segments

    /// At t = 3 s the second of three 2-second items is half done: the first segment is full, the
    /// second filled to its middle, the third empty.
    func testSegmentFillAtAKnownTime() throws {
        let photos = try folderWithPhotos()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 360, "height": 640, "fps": 10}, "duration": 3.05,
         "stories": [{"id": "s", "items": [{"uri": "black.png", "duration": 2}, {"uri": "black.png", "duration": 2},
                                           {"uri": "black.png", "duration": 2}]}]}
        """, folder: photos.path)
        let (_, _, output) = try render(board)
        let picture = try frame(output, 30)
        // At 360 wide: inset 8 px, bars 2 px high from y = 8, gap 2 px; each bar (360 − 16 − 4) / 3 wide.
        let barWidth = (360.0 - 16 - 4) / 3
        let y = 9
        func brightness(bar: Int, at fraction: Double) -> Int {
            Int(picture[Int(8 + Double(bar) * (barWidth + 2) + fraction * barWidth), y].red)
        }
        XCTAssertGreaterThan(brightness(bar: 0, at: 0.5), 200, "finished item: full")
        XCTAssertGreaterThan(brightness(bar: 1, at: 0.25), 200, "current item: filled to its progress")
        XCTAssertLessThan(brightness(bar: 1, at: 0.75), 120, "current item: empty past its progress")
        XCTAssertLessThan(brightness(bar: 2, at: 0.5), 120, "future item: empty")
        XCTAssertGreaterThan(brightness(bar: 2, at: 0.5), 40, "future item: a faint track")
        XCTAssertEqual(picture[180, 320], black, "the picture itself is untouched")
    }

    func testNoOverlayDrawsNoSegments() throws {
        let photos = try folderWithPhotos()
        let board = try Storyboard.parse(#"{"canvas": {"width": 360, "height": 640, "fps": 10}, "duration": 0.2, "stories": [{"items": [{"uri": "black.png"}]}]}"#,
                                         folder: photos.path)
        let folder = try render(board) { $0.overlay = false }.folder
        XCTAssertEqual(try frame(folder, 0)[20, 9], black)
    }

    // MARK: - Tap zones

    func testTapAtPointTwoGoesBackAndAtPointEightGoesForward() throws {
        let photos = try folderWithPhotos()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 2,
         "stories": [{"id": "a", "items": [{"uri": "red.png"}, {"uri": "blue.png"}]}, {"id": "b", "items": [{"uri": "black.png"}]}],
         "script": [{"at": 0.5, "action": "tap", "x": 0.8}, {"at": 1.0, "action": "tap", "x": 0.2}, {"at": 1.5, "action": "tap", "x": 0.34}]}
        """, folder: photos.path)
        let (_, events, output) = try render(board)
        let plays = events.of(.play).map { "\($0.story)#\($0.item!)@\(ObjectReader.format($0.t))" }
        XCTAssertEqual(plays, ["a#0@0", "a#1@0.5", "a#0@1", "a#1@1.5"], "x = 0.8 next, x = 0.2 previous, x = 0.34 next")
        XCTAssertEqual(try frame(output, 7)[36, 64], blue)
        XCTAssertEqual(try frame(output, 12)[36, 64], red)
    }

    // MARK: - Hold

    /// A hold freezes the video and the progress: the item ends later by the hold's length.
    func testHoldFreezesVideoAndSegments() throws {
        let photos = try folderWithPhotos()
        let json = """
        {"canvas": {"width": 360, "height": 640, "fps": 10},
         "stories": [{"id": "s", "items": [{"uri": "counter.mp4"}]}],
         "script": [{"at": 0.3, "action": "hold", "for": 0.4}]}
        """
        let board = try Storyboard.parse(json, folder: photos.path)
        let (_, events, folder) = try render(board) { $0.overlay = false }
        XCTAssertEqual(events.of(.ended).first?.t ?? 0, 1.4, accuracy: 1e-9, "1 s of video plus 0.4 s held")
        XCTAssertEqual(try frame(folder, 4), try frame(folder, 6), "the picture does not move while held")
        XCTAssertNotEqual(try frame(folder, 2), try frame(folder, 4))
        XCTAssertEqual(try frame(folder, 7), try frame(folder, 3), "it resumes where it was")
        // With the overlay: segments show before the hold and have faded out in the middle of it.
        let (_, _, withOverlay) = try render(Storyboard.parse(json, folder: photos.path))
        XCTAssertGreaterThan(try frame(withOverlay, 2)[30, 9].red, 150, "segments before the hold")
        XCTAssertEqual(try frame(withOverlay, 6)[30, 9], try frame(folder, 6)[30, 9], "no overlay while held")
    }

    // MARK: - Auto-advance

    func testLastItemEndsIntoACubeTransition() throws {
        let photos = try folderWithPhotos()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 20, "background": "#00ff00"}, "transition": {"duration": 0.4, "shading": 0},
         "stories": [{"id": "a", "items": [{"uri": "red.png", "duration": 0.5}, {"uri": "red.png", "duration": 0.5}]},
                     {"id": "b", "items": [{"uri": "blue.png", "duration": 1}]}]}
        """, folder: photos.path)
        let (_, events, output) = try render(board)
        XCTAssertEqual(events.of(.ended, story: "a").map(\.t), [0.5, 1.0])
        XCTAssertEqual(events.of(.play, story: "b").first?.t ?? 0, 1.05, accuracy: 1e-9)
        let mid = try frame(output, 23)   // 0.15 s into the 0.4 s turn
        XCTAssertEqual(mid[2, 64], red, "story a on the left face")
        XCTAssertEqual(mid[70, 64], blue, "story b on the right face")
        XCTAssertEqual(mid[70, 1], RGBAColor(red: 0, green: 255, blue: 0), "the background shows where the faces recede")
    }

    // MARK: - Loading ring

    /// While a story's first frame is pending, its avatar sits in the centre with a ring turning
    /// around it, over the blurred poster.
    func testRingWhileLoading() throws {
        try LiveServers.require("python3")
        let photos = try folderWithPhotos()
        let servers = ServerSet()
        defer { servers.stopAll() }
        let port = try servers.stallingServer()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 360, "height": 640, "fps": 10}, "duration": 0.3, "clock": "realtime",
         "timeouts": {"open": 5, "read": 5, "retries": 0},
         "stories": [{"id": "s", "poster": "orange.png", "items": [{"uri": "http://127.0.0.1:\(port)/live.m3u8", "live": true}]}]}
        """, folder: photos.path)
        let (summary, events, output) = try render(board)
        XCTAssertEqual(events.of(.firstFrame), [])
        let picture = try frame(output, summary.lateFrames.contains(0) ? 1 : 0)
        let scale = 0.5
        // The avatar: the poster, sharp (not darkened) in the centre.
        XCTAssertLessThanOrEqual(picture[180, 320].distance(to: RGBAColor(red: 250, green: 140, blue: 20)), 6)
        // The blurred poster around it: darkened.
        let around = picture[40, 500]
        XCTAssertLessThan(around.red, 200)
        XCTAssertGreaterThan(around.red, 150)
        // The ring: at 12 o'clock, where the arc starts, it is nearly white.
        let ring = picture[180, Int(320 - 54 * scale)]
        XCTAssertGreaterThan(Int(ring.green), 200, "\(ring)")
    }

    // MARK: - Present and dismiss

    func testPresentMaskAtItsMidpoint() throws {
        let photos = try folderWithPhotos()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10, "background": "#000000"}, "duration": 1,
         "present": {"from": [0.5, 0.75, 0.1], "duration": 0.4},
         "stories": [{"id": "s", "items": [{"uri": "red.png"}]}]}
        """, folder: photos.path)
        let folder = try render(board) { $0.overlay = false }.folder
        let picture = try frame(folder, 2)   // t = 0.2, the midpoint
        let transform = BubbleTransform.opening(from: (0.5, 0.75, 0.1), progress: ViewerNavigator.easeOut(0.5), width: 72, height: 128)
        XCTAssertEqual(transform.maskRadius, 7.2 + (sqrt(72.0 * 72 + 128 * 128) / 2 - 7.2) * 0.875, accuracy: 1e-9)
        XCTAssertEqual(picture[Int(transform.centre.x), Int(transform.centre.y)], red, "inside the mask")
        XCTAssertEqual(picture[0, 0], black, "outside the mask: the corner is still hidden")
        XCTAssertNotEqual(try frame(folder, 0), try frame(folder, 2))
        XCTAssertEqual(try frame(folder, 5)[0, 0], red, "opened: the full rectangle")
    }

    func testDismissShrinksAndEndsTheRender() throws {
        let photos = try folderWithPhotos()
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "present": {"from": [0.2, 0.2, 0.1], "duration": 0.3},
         "stories": [{"id": "s", "items": [{"uri": "red.png", "duration": 5}]}],
         "script": [{"at": 1.0, "action": "dismiss"}]}
        """, folder: photos.path)
        let (summary, events, output) = try render(board)
        XCTAssertEqual(summary.frames, 13, "the render ends when the dismiss animation has played")
        XCTAssertEqual(events.of(.stop).first?.t ?? 0, 1.3, accuracy: 1e-9)
        XCTAssertEqual(try frame(output, 9)[0, 127], red)
        XCTAssertNotEqual(try frame(output, 12)[0, 127], red, "shrinking towards the bubble")
    }

    /// With a `duration`, the render goes on past a dismiss, but the viewer has closed: found
    /// by an audit of hand-written boards, the dismissed story kept playing inside its bubble
    /// to the end, and a tap after it opened the next story there. Now its player stops as the
    /// viewer closes, the frames after show what is behind it (here the background), and the
    /// tap is ignored with a notice; a finished pull likewise.
    func testAViewerClosedBeforeTheDurationPlaysNothingMore() throws {
        let photos = try folderWithPhotos()
        for (name, closing) in [("dismiss", #"{"at": 1.0, "action": "dismiss"}"#),
                                ("pull", #"{"at": 1.0, "action": "pull", "to": 0.6, "over": 0.2}, {"at": 1.2, "action": "release"}"#)] {
            let board = try Storyboard.parse("""
            {"canvas": {"width": 72, "height": 128, "fps": 10, "background": "#0000ff"}, "duration": 4,
             "stories": [{"id": "a", "items": [{"uri": "red.png", "duration": 5}]},
                         {"id": "b", "items": [{"uri": "\(Fixture.path("counter.mp4"))"}]}],
             "script": [\(closing), {"at": 3, "action": "tap", "x": 0.9}]}
            """, folder: photos.path)
            let (summary, events, output) = try render(board) { $0.overlay = false }
            XCTAssertEqual(summary.frames, 40, "\(name): the duration's frames")
            XCTAssertEqual(events.of(.play).map(\.story), ["a"], "\(name): nothing plays after the close")
            let stop = try XCTUnwrap(events.of(.stop).first, name)
            XCTAssertLessThan(stop.t, 2, "\(name): the dismissed story's player stops as the viewer closes")
            XCTAssertTrue(summary.notices.contains("ignored tap at 3.0 s: the viewer has closed"), "\(name): \(summary.notices)")
            for n in [25, 35, 39] {
                let picture = try frame(output, n)
                XCTAssertEqual(picture[36, 64], RGBAColor(red: 0, green: 0, blue: 255), "\(name): frame \(n) shows the background")
            }
            XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], name)
        }
    }

    // MARK: - Preload window

    /// Posters and metadata load for −1…+2 around the current story after each move, never for
    /// the whole feed.
    func testPreloadWindowFollowsTheViewer() throws {
        let photos = try folderWithPhotos()
        let stories = (0..<6).map { #"{"id": "s\#($0)", "poster": "orange.png", "items": [{"uri": "red.png"}]}"# }.joined(separator: ",")
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 3.5, "transition": {"duration": 0.2},
         "stories": [\(stories)],
         "script": [{"at": 1, "action": "swipe", "direction": "next"}, {"at": 2, "action": "swipe", "direction": "next"},
                    {"at": 3, "action": "swipe", "direction": "next"}]}
        """, folder: photos.path)
        let (summary, events, _) = try render(board)
        let preloads = events.of(.preload).map { "\($0.story)@\(ObjectReader.format($0.t))" }
        XCTAssertEqual(preloads, ["s0@0", "s1@0", "s2@0", "s3@1.2", "s4@2.2", "s5@3.2"])
        XCTAssertEqual(events.of(.preload).first?.loaded, ["poster"], "the story about to play is not probed")
        XCTAssertEqual(events.of(.preload)[1].loaded, ["poster", "probe"])
        XCTAssertEqual(events.of(.preload)[1].detail, "png 36x64")
        XCTAssertEqual(summary.posterMisses, 0)
    }

    // MARK: - Paged feeds

    func writePage(_ folder: String, _ name: String, stories: [String], next: String?) {
        let json = "{\"stories\": [\(stories.map { #"{"id": "\#($0)", "items": [{"uri": "media/counter.mp4", "duration": 0.5}]}"# }.joined(separator: ","))], "
            + "\"next\": \(next.map { "\"\($0)\"" } ?? "null")}"
        FileManager.default.createFile(atPath: (folder as NSString).appendingPathComponent(name), contents: Data(json.utf8))
    }

    func feedServer(_ servers: ServerSet) throws -> (folder: String, base: String) {
        let folder = servers.folder.file("feed")
        try FileManager.default.createDirectory(atPath: folder + "/media", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.path("counter.mp4"), toPath: folder + "/media/counter.mp4")
        return (folder, try servers.httpServer(root: folder))
    }

    /// Three pages over HTTP: each next page arrives before the viewer needs it, so every swipe
    /// lands, through to the last story of the last page.
    func testFeedPagesAreFetchedBeforeTheyAreNeeded() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let (folder, base) = try feedServer(servers)
        writePage(folder, "page1.json", stories: ["a", "b", "c"], next: "page2.json")
        writePage(folder, "page2.json", stories: ["d", "e"], next: "\(base)/page3.json")
        writePage(folder, "page3.json", stories: ["f"], next: nil)
        let swipes = (1...5).map { #"{"at": \#(Double($0) * 0.4), "action": "swipe", "direction": "next"}"# }.joined(separator: ",")
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 2.6, "transition": {"duration": 0.2},
         "feed": {"url": "\(base)/page1.json", "page_size": 10}, "script": [\(swipes)]}
        """, folder: servers.folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(summary.feedPages, 3)
        XCTAssertEqual(events.of(.play).map(\.story), ["a", "b", "c", "d", "e", "f"])
        XCTAssertEqual(events.of(.failed), [], "relative media URLs resolve against the page's URL")
        XCTAssertFalse(summary.notices.contains { $0.contains("ignored swipe") }, "\(summary.notices)")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    /// A page that cannot be fetched: the viewer stays on what it has, logs the error, and tries
    /// again at the next move.
    func testFailedPageFetchIsLoggedAndRetried() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let (folder, base) = try feedServer(servers)
        writePage(folder, "page1.json", stories: ["a", "b"], next: "missing.json")
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1.5, "transition": {"duration": 0.2},
         "feed": {"url": "\(base)/page1.json"},
         "script": [{"at": 0.5, "action": "swipe", "direction": "next"}, {"at": 1.0, "action": "swipe", "direction": "next"}]}
        """, folder: servers.folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(events.of(.play).map(\.story), ["a", "b"])
        let failures = summary.notices.filter { $0.contains("missing.json") && $0.contains("404") }
        // Tried at the start, and again after the move: one notice that counts both.
        XCTAssertEqual(failures.count, 1, "\(summary.notices)")
        XCTAssertTrue(failures.first?.contains("failed 2 times") == true, "\(summary.notices)")
        XCTAssertTrue(summary.notices.contains { $0.contains("ignored swipe next") })
        XCTAssertEqual(summary.feedPages, 1)
    }

    /// A page fetched over the network may name only network URLs.
    func testRemotePageCannotNameLocalFiles() throws {
        try LiveServers.require("python3")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let (folder, base) = try feedServer(servers)
        let json = """
        {"stories": [{"id": "url", "items": [{"uri": "file:///etc/hostname"}]},
                     {"id": "path", "items": [{"uri": "/etc/hostname"}]},
                     {"id": "poster", "poster": "file:///etc/hostname", "items": [{"uri": "media/counter.mp4"}]}], "next": null}
        """
        FileManager.default.createFile(atPath: folder + "/page.json", contents: Data(json.utf8))
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 1.5, "transition": {"duration": 0.1},
         "feed": {"url": "\(base)/page.json"},
         "script": [{"at": 0.5, "action": "swipe", "direction": "next"}, {"at": 1.0, "action": "swipe", "direction": "next"}]}
        """, folder: servers.folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(events.of(.failed).map(\.story), ["url", "path", "poster"].filter { $0 != "poster" })
        for failure in events.of(.failed) {
            XCTAssertTrue(failure.error?.contains("may not name a local file") ?? false, failure.error ?? "")
        }
        XCTAssertTrue(summary.notices.contains { $0.contains("story poster: poster not loaded") && $0.contains("may not name a local file") },
                      "\(summary.notices)")
        XCTAssertEqual(events.of(.firstFrame, story: "poster").count, 1, "its media, on the network, still plays")
    }
}
