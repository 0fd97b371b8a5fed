import Compositor
import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Issue 56: a room laid out as a grid of pages, a stage, or a presentation of a screen share,
/// checked where it reaches the screen: each tile's colour where the layout puts it, the page
/// dots, the share's four corners, the picture-in-picture camera; and the `layout` events and
/// tile players in the trace.
final class RoomLayoutTests: XCTestCase {
    var folder: ScratchFolder!
    static let width = 144, height = 256

    /// Seven participants, each a solid colour (no sound: the order is the ids').
    static let colours = [("ana", "ff0000"), ("ben", "00ff00"), ("cy", "0000ff"), ("dee", "ffff00"),
                          ("eve", "ff00ff"), ("fay", "00ffff"), ("gus", "ffffff")]

    override func setUpWithError() throws {
        try LiveServers.require("ffmpeg")
        folder = ScratchFolder()
        for (id, colour) in RoomLayoutTests.colours {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=0x\(colour):s=180x320:r=30:d=4",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", folder.file("\(id).mp4")])
        }
        // A landscape screen: four quadrants of four colours, so its corners say it is whole.
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=160x90:r=30:d=4", "-f", "lavfi", "-i", "color=c=0x00ff00:s=160x90:r=30:d=4",
                    "-f", "lavfi", "-i", "color=c=blue:s=160x90:r=30:d=4", "-f", "lavfi", "-i", "color=c=yellow:s=160x90:r=30:d=4",
                    "-filter_complex", "[0][1]hstack[t];[2][3]hstack[b];[t][b]vstack",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p", folder.file("screen.mp4")])
    }

    override func tearDown() { folder = nil }

    func board(room: String, participants: [String], extra: [String] = [], script: String = "") throws -> Storyboard {
        let list = participants.map { #"{"id": "\#($0)", "uri": "\#($0).mp4"}"# } + extra
        return try Storyboard.parse("""
        {"canvas": {"width": \(RoomLayoutTests.width), "height": \(RoomLayoutTests.height), "fps": 10}, "duration": 3,
         "stories": [{"id": "panel", "room": {"participants": [\(list.joined(separator: ", "))], \(room)}, "duration": 3}],
         "script": [\(script)]}
        """, folder: folder.path)
    }

    func frame(_ output: ScratchFolder, _ n: Int) throws -> RGBAImage {
        try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, n))
    }

    func colour(of id: String) -> RGBAColor { RGBAColor(hex: "#" + RoomLayoutTests.colours.first { $0.0 == id }!.1)! }

    func assertTiles(_ frame: RGBAImage, _ ids: [String], _ rects: [TileRect], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ids.count, rects.count, file: file, line: line)
        for (id, rect) in zip(ids, rects) {
            let seen = frame[Int(rect.centre.x), Int(rect.centre.y)]
            XCTAssertLessThan(seen.distance(to: colour(of: id)), 40, "\(id)'s tile at \(rect) shows \(seen)", file: file, line: line)
        }
    }

    // MARK: - Grid

    /// Seven participants in pages of four: page 1's four tiles where `gridTiles` puts them,
    /// each its participant's colour, two dots with the first white; the `page` action shows
    /// page 2's three; a `layout` action back to the spotlight cross-fades. Tile players are
    /// made for the page shown and stopped with it, and are not counted as the viewer's.
    func testGridPagesShowEachTileWhereTheLayoutPutsIt() throws {
        let people = ["ana", "ben", "cy", "dee", "eve", "fay", "gus"]
        let board = try board(room: #""layout": "grid", "tiles_per_page": 4"#, participants: people,
                              script: #"{"action": "page", "at": 1, "page": 2}, {"action": "layout", "at": 2, "layout": "spotlight"}"#)
        let output = try render(board)
        let layout = RoomLayout(width: RoomLayoutTests.width, height: RoomLayoutTests.height)
        let aspect = 180.0 / 320
        let first = try frame(output.folder, 5)
        assertTiles(first, ["ana", "ben", "cy", "dee"], layout.gridTiles(count: 4, aspect: aspect, paged: true))
        // The page dots: two, the first white.
        let dotY = Int(Double(RoomLayoutTests.height) - layout.padding - layout.dotsBand / 2)
        let step = max(2, layout.dotsBand * 0.2) * 3.5
        let left = Int(Double(RoomLayoutTests.width) / 2 - step / 2), right = Int(Double(RoomLayoutTests.width) / 2 + step / 2)
        XCTAssertLessThan(first[left, dotY].distance(to: .white), 30, "page 1's dot is white")
        XCTAssertLessThan(first[right, dotY].distance(to: RoomPicture.dotColor), 30, "page 2's is not")

        let second = try frame(output.folder, 15)
        assertTiles(second, ["eve", "fay", "gus"], layout.gridTiles(count: 3, aspect: aspect, paged: true))
        XCTAssertLessThan(second[right, dotY].distance(to: .white), 30, "page 2's dot is white")

        // Back to the spotlight, animated: mid-fade the large area is neither, then ana large.
        let mid = try frame(output.folder, 21)
        let centre = layout.largeCentre
        XCTAssertGreaterThan(mid[Int(centre.x), Int(centre.y)].distance(to: colour(of: "ana")), 40, "the change cross-fades")
        XCTAssertLessThan(try frame(output.folder, 26)[Int(centre.x), Int(centre.y)].distance(to: colour(of: "ana")), 40)

        let layouts = output.trace.of(.layout)
        XCTAssertEqual(layouts.map(\.layout), ["grid", "grid", "spotlight"])
        XCTAssertEqual(layouts.map(\.page), [1, 2, nil])
        XCTAssertEqual(layouts.map(\.tiles), [["ana", "ben", "cy", "dee"], ["eve", "fay", "gus"], ["ana"]])
        XCTAssertEqual(layouts[1].detail, "page action: page 2")
        XCTAssertEqual(output.summary.tileMoves, 0)
        // Four tile players for page 1, stopped at the page action; three for page 2, stopped
        // at the layout action; then the spotlight's one large player.
        let tiles = output.trace.filter { $0.event == .play && $0.media == TraceEvent.tileMedia }
        XCTAssertEqual(tiles.map(\.participant), people)
        XCTAssertEqual(tiles.map(\.t), [0, 0, 0, 0, 1, 1, 1])
        let stops = output.trace.filter { $0.event == .stop && $0.media == TraceEvent.tileMedia }
        XCTAssertEqual(stops.map(\.t), [1, 1, 1, 1, 2, 2, 2])
        XCTAssertEqual(TraceCheck.check(output.trace.map(\.jsonLine).joined(separator: "\n"), maxAlive: 1, maxAudio: 7), [])
        XCTAssertEqual(output.summary.peakAlivePlayers, 1, "the room's tiles are not the viewer's players")
        // Nor on the timeline's count of video players.
        let spans = LifecycleTimeline.aliveSpans(output.trace, map: LifecycleTimeline.LaneMap(output.trace), audio: false, until: 3)
        XCTAssertEqual(spans.map(\.count).max(), 1, "\(spans)")
    }

    /// A shard that starts on page 2 of a grid (its fast-forward follows the page action and
    /// starts the tiles' players deferred) draws the frames the whole render draws, and its
    /// trace keeps the layout events from its first frame on.
    func testAShardOfAGridDrawsTheWholeRendersFrames() throws {
        let people = ["ana", "ben", "cy", "dee", "eve", "fay", "gus"]
        let board = try board(room: #""layout": "grid", "tiles_per_page": 4"#, participants: people,
                              script: #"{"action": "page", "at": 1, "page": 2}, {"action": "layout", "at": 2, "layout": "stage"}"#)
        let whole = try render(board)
        let shard = try render(board) { $0.frameRange = 12..<25 }
        for n in 12..<25 {
            XCTAssertEqual(FileManager.default.contents(atPath: StoryRenderer.framePath(shard.folder.path, n)),
                           FileManager.default.contents(atPath: StoryRenderer.framePath(whole.folder.path, n)), "frame \(n)")
        }
        XCTAssertEqual(shard.trace.of(.layout).map(\.tiles), whole.trace.of(.layout).filter { $0.t >= 1.2 - 1e-9 }.map(\.tiles))
    }

    /// The scripted talk end to end: nine participants in pages of four, each speaking (a
    /// tone) in its own turns; the speaker changes come from the sound. Every change that
    /// brings a speaker from another page moves exactly one tile (that speaker, to page 1), and
    /// one among page 1's moves none; `tile_moves` in the summary counts them.
    func testAScriptedTalkMovesOneTileForEachSpeakerFromAnotherPage() throws {
        let people = ["ana", "ben", "cy", "dee", "eve", "fay", "gus", "hal", "ivy"]
        let turns = ["ana", "eve", "ben", "ivy", "eve", "cy", "gus", "ana", "hal"]
        for (index, id) in people.enumerated() {
            let windows = turns.enumerated().filter { $0.element == id }.map { "between(t,\(Double($0.offset) * 2 + 0.5),\(Double($0.offset) * 2 + 2))" }
            let enable = windows.isEmpty ? "0" : windows.joined(separator: "+")
            try ffmpeg(["-f", "lavfi", "-i", "color=c=0x\(RoomLayoutTests.colours[index % 7].1):s=90x160:r=10:d=19",
                        "-f", "lavfi", "-i", "sine=frequency=\(300 + 60 * index):sample_rate=48000:duration=19",
                        "-af", "volume=enable='not(\(enable))':volume=0",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                        folder.file("talk-\(id).mp4")])
        }
        let list = people.map { #"{"id": "\#($0)", "uri": "talk-\#($0).mp4"}"# }.joined(separator: ", ")
        let board = try Storyboard.parse("""
        {"canvas": {"width": 90, "height": 160, "fps": 10}, "duration": 18.5,
         "stories": [{"id": "panel", "room": {"participants": [\(list)], "layout": "grid", "tiles_per_page": 4}, "duration": 18.5}]}
        """, folder: folder.path)
        let output = try render(board)
        var pageOne: [String] = []
        var expected = 0
        var changes = 0
        for event in output.trace where event.story == "panel" {
            if event.event == .layout, event.page == 1, let tiles = event.tiles { pageOne = tiles }
            if event.event == .speaker, let speaker = event.participant {
                changes += 1
                if !pageOne.contains(speaker) { expected += 1 }
            }
        }
        let speakers = output.trace.of(.speaker).compactMap(\.participant)
        print("scripted talk through the render: speakers \(speakers), \(expected) from another page, tile moves \(output.summary.tileMoves ?? -1)")
        XCTAssertEqual(speakers, turns, "the speaker changes follow the tones")
        XCTAssertGreaterThanOrEqual(expected, 4, "eve, ivy, gus and hal start off page 1")
        XCTAssertEqual(output.summary.tileMoves, expected)
        for event in output.trace.of(.layout) where event.moved != nil {
            XCTAssertEqual(event.moved?.count, 1, "one tile a change: \(event.detail ?? "")")
            XCTAssertEqual(event.tiles?.contains(event.moved![0]), true, "the speaker is on page 1")
        }
        XCTAssertLessThanOrEqual(expected, changes)
    }

    /// What reaches the tiles is video as it plays, not a first picture held: four participants
    /// whose grey level steps every picture (N × 20), in a grid at the sources' 10 fps; each
    /// tile's centre shows a new level on almost every frame. And a phone's portrait clip
    /// (stored landscape, red left and blue right, with a display matrix to turn it) is upright
    /// in its tile: blue above, red below.
    func testGridTilesPlayTheirVideoAndShowAPhoneClipUpright() throws {
        for (index, id) in ["ana", "ben", "cy"].enumerated() {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=180x320:r=10:d=3,format=yuv444p,geq=lum='mod(N*20+\(index * 7),200)+16':cb=128:cr=128",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p", folder.file("moving-\(id).mp4")])
        }
        func grid(_ list: [String]) throws -> (trace: [TraceEvent], folder: ScratchFolder) {
            let board = try Storyboard.parse("""
            {"canvas": {"width": \(RoomLayoutTests.width), "height": \(RoomLayoutTests.height), "fps": 10}, "duration": 2.5,
             "stories": [{"id": "panel", "room": {"participants": [\(list.joined(separator: ", "))], "layout": "grid"}, "duration": 2.5}]}
            """, folder: folder.path)
            let output = try render(board)
            return (output.trace, output.folder)
        }
        let layout = RoomLayout(width: RoomLayoutTests.width, height: RoomLayoutTests.height)
        let moving = try grid(["ana", "ben", "cy"].map { #"{"id": "\#($0)", "uri": "moving-\#($0).mp4"}"# })
        let tiles = layout.gridTiles(count: 3, aspect: 180.0 / 320, paged: false)
        let tileOf = Dictionary(uniqueKeysWithValues: zip(moving.trace.of(.layout).first?.tiles ?? [], tiles))
        let frames = try (0..<25).map { try frame(moving.folder, $0) }
        for id in ["ana", "ben", "cy"] {
            let tile = try XCTUnwrap(tileOf[id], "\(id) has a tile")
            let levels = frames.map { $0[Int(tile.centre.x), Int(tile.centre.y)].red }
            let changes = zip(levels, levels.dropFirst()).filter { abs(Int($0) - Int($1)) > 8 }.count
            XCTAssertGreaterThanOrEqual(changes, 20, "\(id)'s tile shows a new picture on nearly every frame: \(levels)")
        }
        // The phone's clip is short (0.5 s): read while it plays, beside one other participant.
        let phoneRoom = try grid([#"{"id": "ana", "uri": "moving-ana.mp4"}"#, #"{"id": "phone", "uri": "\#(Fixture.path("rotated.mp4"))"}"#])
        let pair = Dictionary(uniqueKeysWithValues: zip(phoneRoom.trace.of(.layout).first?.tiles ?? [],
                                                        layout.gridTiles(count: 2, aspect: 180.0 / 320, paged: false)))
        let phone = try XCTUnwrap(pair["phone"])
        let picture = try frame(phoneRoom.folder, 2)
        func at(_ dy: Double) -> String { dominantChannel(picture[Int(phone.centre.x), Int(Double(phone.y) + dy * Double(phone.height))]) }
        XCTAssertEqual(at(0.25), "blue", "the top of the phone's picture")
        XCTAssertEqual(at(0.75), "red", "the bottom")
    }

    // MARK: - Stage
    // MARK: - Stage
    // MARK: - Stage

    /// A stage of three: the first three large side by side in the large area, the fourth in
    /// the strip.
    func testStageShowsItsParticipantsLargeAndTheRestInTheStrip() throws {
        let board = try board(room: #""layout": "stage", "stage_size": 3"#, participants: ["ana", "ben", "cy", "dee"])
        let output = try render(board)
        let layout = RoomLayout(width: RoomLayoutTests.width, height: RoomLayoutTests.height)
        let picture = try frame(output.folder, 10)
        assertTiles(picture, ["ana", "ben", "cy"], layout.stageTiles(count: 3, aspect: 180.0 / 320))
        // dee is the strip's one avatar (no avatar picture: the placeholder disc); the second
        // slot is empty.
        XCTAssertLessThan(picture[Int(layout.slots[0].x), Int(layout.slots[0].y)].distance(to: RoomPicture.placeholder), 30)
        XCTAssertLessThan(picture[Int(layout.slots[1].x), Int(layout.slots[1].y)].distance(to: RoomPicture.background), 10)
        XCTAssertEqual(output.trace.of(.layout).first?.tiles, ["ana", "ben", "cy"])
        XCTAssertEqual(output.trace.filter { $0.event == .play && $0.media == TraceEvent.tileMedia }.count, 3)
    }

    // MARK: - Screen share

    /// A screen share is large in every layout (here a grid's), fitted whole: its four
    /// quadrants' colours at the four corners of its picture; its sharer's camera in the
    /// picture-in-picture tile; the others in the strip.
    func testAScreenShareIsShownWholeWithItsSharersCameraInAPictureInPicture() throws {
        let board = try board(room: #""layout": "grid""#, participants: ["ana", "ben"],
                              extra: [#"{"id": "deck", "uri": "screen.mp4", "screenshare": true, "sharer": "ana"}"#])
        let output = try render(board)
        let layout = RoomLayout(width: RoomLayoutTests.width, height: RoomLayoutTests.height)
        let picture = try frame(output.folder, 10)
        let fitted = RoomLayout.fitted((320, 180), within: layout.largeAreaSize)
        let x0 = Int(layout.large.x) + (layout.largeAreaSize.width - fitted.width) / 2
        let y0 = Int(layout.large.y) + (layout.largeAreaSize.height - fitted.height) / 2
        let inset = 4
        let corners = [(x0 + inset, y0 + inset, "ff0000"), (x0 + fitted.width - inset, y0 + inset, "00ff00"),
                       (x0 + inset, y0 + fitted.height - inset, "0000ff"), (x0 + fitted.width - inset, y0 + fitted.height - inset, "ffff00")]
        for (x, y, hex) in corners {
            XCTAssertLessThan(picture[x, y].distance(to: RGBAColor(hex: "#" + hex)!), 48, "corner at \(x),\(y) shows \(picture[x, y]), not #\(hex)")
        }
        let pip = layout.pictureInPicture(aspect: 180.0 / 320)
        XCTAssertLessThan(picture[Int(pip.centre.x), Int(pip.centre.y)].distance(to: colour(of: "ana")), 40, "ana's camera in the corner")
        let layouts = output.trace.of(.layout)
        XCTAssertEqual(layouts.first?.layout, "presentation")
        XCTAssertEqual(layouts.first?.tiles, ["deck"])
        XCTAssertTrue(layouts.first?.detail?.contains("deck is a screen share") ?? false, "\(layouts)")
        let tiles = output.trace.filter { $0.event == .play && $0.media == TraceEvent.tileMedia }
        XCTAssertEqual(tiles.map(\.participant), ["ana"], "the picture-in-picture camera")
    }

    /// Canvases a layout barely fits (16x16, 64x36, and 720x144, where a stage's large area has
    /// no height): every layout draws, nothing traps, and the trace holds.
    func testLayoutsOnTinyAndVeryWideCanvasesStillDraw() throws {
        let list = ["ana", "ben", "cy", "dee", "eve", "fay"].map { #"{"id": "\#($0)", "uri": "\#($0).mp4"}"# }.joined(separator: ", ")
        for (width, height) in [(16, 16), (64, 36), (720, 144)] {
            let board = try Storyboard.parse("""
            {"canvas": {"width": \(width), "height": \(height), "fps": 10}, "duration": 1.5,
             "stories": [{"id": "panel", "room": {"participants": [\(list)], "layout": "grid"}, "duration": 1.5}],
             "script": [{"action": "layout", "at": 0.5, "layout": "stage"}, {"action": "page", "at": 0.7, "page": 2},
                        {"action": "layout", "at": 1, "layout": "spotlight"}]}
            """, folder: folder.path)
            let output = try render(board)
            XCTAssertEqual(output.summary.frames, 15, "\(width)x\(height)")
            XCTAssertEqual(TraceCheck.check(output.trace.map(\.jsonLine).joined(separator: "\n"), maxAlive: 1, maxAudio: 6), [], "\(width)x\(height)")
        }
    }

    // MARK: - The storyboard

    func testLayoutMistakesNameTheirPaths() throws {
        func error(_ room: String, script: String = "", extra: [String] = []) -> String {
            do {
                _ = try board(room: room, participants: ["ana", "ben"], extra: extra, script: script)
                return "no error"
            } catch let error as StoryboardError {
                return error.all.map { "\($0.path): \($0.message)" }.joined(separator: "\n")
            } catch {
                return "\(error)"
            }
        }
        XCTAssertTrue(error(#""layout": "tiles""#).contains("stories[0].room.layout"), error(#""layout": "tiles""#))
        XCTAssertTrue(error(#""tiles_per_page": 0"#).contains("stories[0].room.tiles_per_page"))
        XCTAssertTrue(error(#""stage_size": 5"#).contains("stories[0].room.stage_size"))
        XCTAssertTrue(error(#""layout": "grid""#, script: #"{"action": "page", "at": 1}"#).contains("script[0]"))
        XCTAssertTrue(error(#""layout": "grid""#, script: #"{"action": "layout", "at": 1, "layout": "mosaic"}"#).contains("script[0].layout"))
        let sharer = error(#""layout": "grid""#, extra: [#"{"id": "deck", "uri": "screen.mp4", "screenshare": true, "sharer": "zed"}"#])
        XCTAssertTrue(sharer.contains("stories[0].room.participants[2].sharer: no camera participant has id \"zed\""), sharer)
    }
}
