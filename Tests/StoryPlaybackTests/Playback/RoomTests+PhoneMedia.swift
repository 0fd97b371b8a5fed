import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

// MARK: - Phone media in a room

extension RoomTests {
    /// A participant who recorded on a phone held upright: the clip is stored landscape (160x90,
    /// red left, blue right) with a display matrix saying to turn it. In the large area it is
    /// shown as the phone showed it, a portrait fitted whole: blue on top, red below.
    func testAPhonesPortraitVideoIsUprightInTheLargeArea() throws {
        let output = ScratchFolder()
        try render(roomBoard(participants: #"{"id": "phone", "uri": "\#(Fixture.path("rotated.mp4"))"}"#, duration: 0.4), into: output)
        let layout = RoomLayout(width: 144, height: 256)
        let fitted = layout.fittedVideoSize(for: (90, 160))
        XCTAssertGreaterThan(fitted.height, fitted.width, "fitted as the portrait it is shown as")
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 2))
        let centre = layout.largeCentre
        func colour(_ dx: Double, _ dy: Double) -> String {
            dominantChannel(frame[Int(centre.x + dx * Double(fitted.width)), Int(centre.y + dy * Double(fitted.height))])
        }
        // Stored unturned, the left quarter would be red and the right blue at every height.
        XCTAssertEqual(colour(-0.25, -0.3), "blue", "top left of the picture")
        XCTAssertEqual(colour(0.25, -0.3), "blue", "top right")
        XCTAssertEqual(colour(-0.25, 0.3), "red", "bottom left")
        XCTAssertEqual(colour(0.25, 0.3), "red", "bottom right")
    }

    /// A participant without video whose avatar is a phone photo: stored landscape, its EXIF
    /// Orientation 6 says to turn it. The large area shows the avatar upright, its middle square
    /// in a circle: each quadrant where ImageMagick's `-auto-orient` puts it.
    func testAPhonePhotoAvatarIsUpright() throws {
        let photo = try PhoneCamera.photo(orientation: 6, in: folder)
        let output = ScratchFolder()
        try render(roomBoard(participants: #"{"id": "voice", "uri": "\#(Fixture.path("tone.m4a"))", "avatar": "\#(photo)"}"#,
                             duration: 0.2), into: output)
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 1))
        let shown = PhoneCamera.shownSize(orientation: 6)
        let upright = try PhoneCamera.reference(photo, width: shown.width, height: shown.height)
        // The avatar's middle square, drawn in a circle of a quarter of the area's shorter side.
        let layout = RoomLayout(width: 144, height: 256)
        let radius = min(layout.large.width, layout.large.height) * 0.25
        let side = min(shown.width, shown.height)
        let square = (x: (shown.width - side) / 2, y: (shown.height - side) / 2)
        for (dx, dy) in [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)] {
            let ours = frame[Int(layout.largeCentre.x + dx * radius), Int(layout.largeCentre.y + dy * radius)]
            let theirs = upright[square.x + Int((0.5 + dx / 2) * Double(side)), square.y + Int((0.5 + dy / 2) * Double(side))]
            let off = [abs(Int(ours.red) - Int(theirs.red)), abs(Int(ours.green) - Int(theirs.green)), abs(Int(ours.blue) - Int(theirs.blue))]
            XCTAssertLessThanOrEqual(off.max() ?? 0, 24, "at (\(dx), \(dy)) of the circle: \(ours), ImageMagick's \(theirs)")
        }
    }
}
