import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryRender
import StoryPlayerTestSupport
import XCTest

// MARK: - A landscape camera large in a live room

extension LiveClockTests {
    /// A landscape RTMP camera, large in a realtime room from the start, is fitted whole into the
    /// portrait large area over its blurred fill, whichever encoder publishes it. It used to be
    /// fitted only when the room's probe had told its size, which a live probe may not, and
    /// cropped otherwise: two thirds of its width lost. The camera is green with a red bar down
    /// its left tenth and a blue one down its right tenth, with sound; both bars must show, and
    /// above the picture the fill, darker than the picture. Read from the frames.
    func testALandscapeLiveCameraIsFittedWholeInARoom() throws {
        try LiveServers.require("nginx")
        let port = try servers.rtmpServer()
        let width = 640, height = 360
        let camera = "color=c=green:s=\(width)x\(height):r=30,drawbox=x=0:y=0:w=64:h=\(height):color=red:t=fill,"
            + "drawbox=x=\(width - 64):y=0:w=64:h=\(height):color=blue:t=fill"
        for family in [ClockCodedPublisher.ffmpeg, .gstreamer] {
            try LiveServers.require(family.programs)
            let url = "rtmp://127.0.0.1:\(port)/live/wide-\(family.rawValue)"
            let command: String
            switch family {
            case .ffmpeg:
                command = "ffmpeg -v error -re -f lavfi -i '\(camera)' -f lavfi -i sine=frequency=440:sample_rate=48000 "
                    + "-c:v libx264 -preset veryfast -tune zerolatency -g 30 -pix_fmt yuv420p -c:a aac -f flv '\(url)'"
            case .gstreamer:
                command = "ffmpeg -v error -re -f lavfi -i '\(camera)' -f rawvideo -pix_fmt rgb24 - | gst-launch-1.0 -q "
                    + "fdsrc fd=0 blocksize=\(width * height * 3) ! rawvideoparse width=\(width) height=\(height) format=rgb framerate=30/1 "
                    + "! videoconvert ! video/x-raw,format=I420 ! x264enc tune=zerolatency speed-preset=veryfast key-int-max=30 "
                    + "! h264parse ! queue ! flvmux name=m streamable=true ! rtmp2sink location='\(url)' "
                    + "audiotestsrc is-live=true wave=sine ! audioconvert ! avenc_aac ! aacparse ! queue ! m."
            }
            let publisher = try publishToRTMP(command, url: url, name: "wide-\(family.rawValue)")
            defer { publisher.stop() }
            let board = try Storyboard.parse("""
            {"canvas": {"width": 360, "height": 640, "fps": 30}, "duration": 4, "clock": "realtime",
             "timeouts": {"open": 3, "read": 2, "retries": 2},
             "stories": [{"id": "panel", "room": {"participants": [{"id": "cam", "uri": "\(url)"}]}, "duration": 30}]}
            """, folder: servers.folder.path)
            let output = ScratchFolder()
            let (summary, events, _) = try render(board, into: output, threads: 1)
            XCTAssertEqual(events.of(.failed).map { $0.error ?? "" }, [], "\(family)")
            XCTAssertEqual(events.of(.firstFrame).filter { $0.participant == "cam" }.count, 1, "\(family): \(events.map(\.jsonLine))")

            let layout = RoomLayout(width: 360, height: 640)
            let fitted = layout.fittedVideoSize(for: (width, height))
            let centre = layout.largeCentre
            let n = (100..<summary.frames).last { !summary.lateFrames.contains($0) } ?? summary.frames - 1
            let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, n))
            func colour(_ dx: Double, _ dy: Double = 0) -> RGBAColor {
                frame[Int(centre.x + dx * Double(fitted.width)), Int(centre.y + dy * Double(fitted.height))]
            }
            XCTAssertEqual(dominantChannel(colour(-0.46)), "red", "\(family), frame \(n): the left edge")
            XCTAssertEqual(dominantChannel(colour(0)), "green", "\(family), frame \(n): the middle")
            XCTAssertEqual(dominantChannel(colour(0.46)), "blue", "\(family), frame \(n): the right edge")
            // Above the picture: the fill, the picture's middle blurred and darkened.
            let fill = colour(0, -0.8), middle = colour(0)
            XCTAssertEqual(dominantChannel(fill), "green", "\(family), frame \(n): the fill above the picture")
            XCTAssertLessThan(Double(fill.green), Double(middle.green) * 0.75, "\(family), frame \(n): the fill is dimmer than the picture")
        }
    }
}
