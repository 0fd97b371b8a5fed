import Compositor
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

/// Mid-turn, the overlay is drawn on the players' own pictures (lent for the frame, so nothing
/// is copied): each picture comes back to its player exactly as it was decoded.
final class LentPictureTests: XCTestCase {
    /// The clip's pictures as a player converts them, by time.
    private func decodedPictures(_ path: String, width: Int, height: Int) throws -> [Double: RGBAImage] {
        let decoder = try MediaDecoder(source: MediaSource(uri: path, relativeTo: "/"), limits: DecodeLimits())
        defer { decoder.close() }
        var pictures: [Double: RGBAImage] = [:]
        while let picture = try decoder.nextPicture() {
            pictures[picture.time] = try decoder.rgba(picture, width: width, height: height)
        }
        return pictures
    }

    func testATurnGivesEveryPictureBackAsItWasDecoded() throws {
        let clip = Fixture.path("counter.mp4")
        let reference = try decodedPictures(clip, width: 96, height: 160)
        // 90 frames a second over a 30 fps clip: each picture is on three frames running, so a
        // picture drawn on and not put back would show its overlay twice on the next.
        let board = try Storyboard.parse("""
        {"canvas": {"width": 96, "height": 160, "fps": 90}, "duration": 1, "transition": {"style": "cube", "duration": 0.5},
         "stories": [{"id": "a", "items": [{"uri": "\(clip)"}]}, {"id": "b", "items": [{"uri": "\(clip)"}]}],
         "script": [{"at": 0.2, "action": "swipe", "direction": "next"}]}
        """)
        let render = StoryRenderer(storyboard: board, options: RenderOptions(outputFolder: ScratchFolder().path))
        // The same frames without the overlay: what the lent pictures must have had drawn on them.
        var plainOptions = RenderOptions(outputFolder: ScratchFolder().path)
        plainOptions.overlay = false
        let plain = StoryRenderer(storyboard: board, options: plainOptions)
        var canvas = RGBAImage(width: 96, height: 160), plainCanvas = canvas
        var checked = 0, decorated = 0
        for n in 0..<60 {
            let t = Double(n) / 90
            render.step(toFrame: n)
            render.compose(at: t, into: &canvas)
            plain.step(toFrame: n)
            plain.compose(at: t, into: &plainCanvas)
            if render.navigator.isMoving, canvas.topRows(8) != plainCanvas.topRows(8) { decorated += 1 }
            for player in render.players.compactMap(\.current) {
                XCTAssertFalse(player.isLent, "frame \(n)")
                guard let shown = player.shown else { continue }
                XCTAssertTrue(shown.image == reference[shown.time], "frame \(n): story \(player.storyID)'s picture at \(shown.time) differs")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 60, "both stories' pictures, through the turn")
        XCTAssertGreaterThan(decorated, 30, "mid-turn frames show the overlay, drawn on the lent pictures")
        for player in render.players + plain.players where player.isPlaying { player.stop(at: 60.0 / 90) }
    }
}
