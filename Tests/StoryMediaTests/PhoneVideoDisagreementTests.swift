import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryEncode
import StoryPlayerTestSupport
import XCTest

/// Issue 30, item 5: phone videos whose parts disagree play as QuickTime, Chrome and ffmpeg play
/// them. Sound that starts before or after the pictures stays in step with them on the
/// container's clock; a rotation given by both a display matrix and a `rotate` tag follows the
/// display matrix. Every clip is made with ffmpeg, and every check is against what ffmpeg itself
/// presents from the same file.
final class PhoneVideoDisagreementTests: XCTestCase {
    let folder = ScratchFolder()

    /// A flash and a beep at the same moment of the source end up at the same moment of the
    /// render's MP4. The render is at 20 fps, so a picture lands on a frame boundary: the two
    /// may be apart by one frame (50 ms) at most. A story that timed each stream from its own
    /// start (as before) puts them 500 ms apart.
    static let tolerance = 0.05

    func testSoundThatStartsBeforeThePicturesStaysInStep() throws {
        try assertFlashAndBeepTogether(try PhoneVideo.clip(soundLead: 0.5, in: folder), "sound 0.5 s early")
    }

    func testSoundThatStartsAfterThePicturesStaysInStep() throws {
        try assertFlashAndBeepTogether(try PhoneVideo.clip(soundLead: -0.5, in: folder), "sound 0.5 s late")
    }

    private func assertFlashAndBeepTogether(_ clip: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        // ffmpeg's presentation of the source: the flash and the beep together, and the streams'
        // starts as far apart as made.
        let source = try PhoneVideo.flashAndBeep(clip)
        XCTAssertEqual(source.flash, source.beep, accuracy: 0.03, "\(what): ffmpeg's view of the source", file: file, line: line)
        let board = try Storyboard.parse("""
            {"canvas": {"width": 64, "height": 64, "fps": 20}, "duration": 2,
             "stories": [{"id": "phone", "items": [{"uri": "\(clip)"}]}]}
            """, folder: folder.path)
        let mp4 = folder.file("render.mp4")
        try render(board) {
            $0.overlay = false
            $0.writeFrames = false
            $0.clip = ClipOptions(path: mp4)
        }
        let rendered = try PhoneVideo.flashAndBeep(mp4)
        XCTAssertEqual(rendered.flash, rendered.beep, accuracy: PhoneVideoDisagreementTests.tolerance,
                       "\(what): the render's flash at \(rendered.flash) s, its beep at \(rendered.beep) s", file: file, line: line)
    }

    /// `probe` and the player read the offset from the container: the sound of a clip whose
    /// sound starts 0.5 s before its pictures is taken 0.5 s further on.
    func testTheOffsetIsTheContainersStartTimes() throws {
        let early = try MediaDecoder(source: MediaSource(uri: try PhoneVideo.clip(soundLead: 0.5, in: folder), relativeTo: "/"),
                                     limits: DecodeLimits())
        defer { early.close() }
        XCTAssertEqual(early.soundOffset, 0.5, accuracy: 0.03)
        let plain = try MediaDecoder(source: MediaSource(uri: Fixture.sample("beach.mp4"), relativeTo: "/"), limits: DecodeLimits())
        defer { plain.close() }
        XCTAssertEqual(plain.soundOffset, 0, accuracy: 0.03)
    }

    // MARK: - Rotation

    /// A clip stored landscape whose track header's matrix turns it a quarter clockwise, and
    /// whose metadata says `rotate` 180 besides. FFmpeg 5.1 and Chrome follow the matrix; so does
    /// the story, in `still` and in a rendered frame. Checked cell by cell against the ffmpeg
    /// CLI's own turned picture (its autorotate), within 16 levels of the cells' mean colour
    /// (x264's chroma blurs the edges; a wrong turn puts another quadrant's colour there).
    func testTheDisplayMatrixWinsOverARotateTag() throws {
        let clip = try PhoneVideo.turnedClip(in: folder)
        let described = String(decoding: try ExternalProgram.run(try TestPrograms.tool("ffprobe"),
                                                                 ["-v", "error", "-show_streams", "-show_format", clip]), as: UTF8.self)
        XCTAssertTrue(described.contains("rotation=-90"), described)
        XCTAssertTrue(described.contains("TAG:rotate=180"), described)
        let reference = try PhoneVideo.ffmpegPicture(clip, width: 32, height: 64)
        let board = try Storyboard.parse("""
            {"canvas": {"width": 32, "height": 64, "fps": 10}, "duration": 0.5,
             "stories": [{"id": "phone", "items": [{"uri": "\(clip)"}]}]}
            """, folder: folder.path)
        let still = try StillRender.render(board, pageOffset: 0, time: 0, overlay: false).image
        PhoneCamera.assertSameRegions(still, reference, "still")
        let result = try render(board) { $0.overlay = false }
        PhoneCamera.assertSameRegions(try PhoneVideo.decodePNG(result.folder.file("frame-000001.png"), width: 32, height: 64),
                                     reference, "render")
        XCTAssertEqual(try MediaProbe.run(clip).orientation, 6)
    }
}

// MARK: - Phone videos, and ffmpeg's view of them

enum PhoneVideo {
    /// A 2 s clip, 64x64 at 20 fps with AAC sound, whose sound starts `soundLead` seconds before
    /// its pictures (negative: after), as an edit list puts it. Its one white frame and its one
    /// 100 ms beep are at 1.0 s of the container's clock.
    static func clip(soundLead: Double, in folder: ScratchFolder) throws -> String {
        let path = folder.file("phone-\(soundLead).mp4")
        let videoStart = max(0, soundLead), soundStart = max(0, -soundLead)
        let flash = 1.0 - videoStart, beep = 1.0 - soundStart
        // Passthrough: the pictures keep their late start (an empty edit) instead of being padded
        // with copies of the first from 0.
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y",
            "-itsoffset", "\(videoStart)", "-f", "lavfi", "-i",
            "color=c=black:s=64x64:r=20:d=\(2 - videoStart),drawbox=c=white:t=fill:enable='between(t,\(flash - 0.001),\(flash + 0.049))'",
            "-itsoffset", "\(soundStart)", "-f", "lavfi", "-i",
            "sine=f=1000:r=48000:d=\(2 - soundStart),volume=0:enable='not(between(t,\(beep),\(beep + 0.1)))'",
            "-fps_mode", "passthrough", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", path,
        ])
        return path
    }

    /// When the first bright picture and the first loud sample of `file` are presented, in
    /// seconds of its container's clock, as ffmpeg decodes it.
    static func flashAndBeep(_ file: String) throws -> (flash: Double, beep: Double) {
        let ffmpeg = try TestPrograms.tool("ffmpeg"), ffprobe = try TestPrograms.tool("ffprobe")
        let pictures = String(decoding: try ExternalProgram.run(ffprobe, [
            "-v", "error", "-f", "lavfi", "-i", "movie=\(file),signalstats",
            "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0",
        ]), as: UTF8.self)
        let flash = pictures.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            return fields.count == 2 && fields[1] > 128 ? fields[0] : nil
        }.first
        let firstSound = String(decoding: try ExternalProgram.run(ffprobe, [
            "-v", "error", "-select_streams", "a", "-show_entries", "frame=pts_time", "-of", "csv=p=0", file,
        ]), as: UTF8.self).split(separator: "\n").first.flatMap { Double($0) }
        let samples = try ExternalProgram.run(ffmpeg, ["-v", "error", "-i", file, "-map", "0:a", "-ac", "1", "-ar", "48000",
                                                       "-f", "f32le", "-"])
        let loud = samples.withUnsafeBytes { raw in
            raw.bindMemory(to: Float.self).firstIndex { abs($0) > 0.05 }
        }
        guard let flash, let firstSound, let loud else {
            throw ExternalProgram.Failed(message: "\(file): no flash or no beep, as ffmpeg decodes it")
        }
        return (flash, firstSound + Double(loud) / 48_000)
    }

    /// A 64x32 clip of four coloured quadrants (the photo tests' colours), its track header's
    /// matrix set to a quarter turn clockwise (as `movenc` writes one), and `rotate` 180 in its
    /// metadata.
    static func turnedClip(in folder: ScratchFolder) throws -> String {
        let plain = folder.file("stored.mp4"), turned = folder.file("turned.mp4")
        let q = PhoneCamera.quadrants.map { "0x" + $0.dropFirst() }
        try ExternalProgram.run(TestPrograms.tool("ffmpeg"), [
            "-v", "error", "-y", "-f", "lavfi", "-i",
            "color=c=\(q[0]):s=32x16:d=0.5[a];color=c=\(q[1]):s=32x16:d=0.5[b];color=c=\(q[2]):s=32x16:d=0.5[c];"
                + "color=c=\(q[3]):s=32x16:d=0.5[d];[a][b]hstack[top];[c][d]hstack[bottom];[top][bottom]vstack",
            "-c:v", "libx264", "-pix_fmt", "yuv444p", "-metadata", "rotate=180", "-movflags", "use_metadata_tags", plain,
        ])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        guard let tkhd = bytes.indices.dropLast(4).first(where: { bytes[$0..<$0 + 4].elementsEqual("tkhd".utf8) }) else {
            throw ExternalProgram.Failed(message: "no track header in \(plain)")
        }
        // The matrix is 36 bytes from byte 44 of the box's contents (version 0): a, b, u, c, d,
        // v, tx, ty, w. A quarter clockwise: a = 0, b = 1, c = -1, d = 0, tx = the height.
        let one: Int32 = 1 << 16
        let matrix: [Int32] = [0, one, 0, -one, 0, 0, 16 << 16, 0, 1 << 30]
        let at = tkhd + 4 + 40
        bytes.replaceSubrange(at..<at + 36, with: matrix.flatMap { value in
            (0..<4).map { UInt8(truncatingIfNeeded: UInt32(bitPattern: value) >> (24 - 8 * $0)) }
        })
        try Data(bytes).write(to: URL(fileURLWithPath: turned))
        return turned
    }

    /// The first picture as the ffmpeg CLI shows it (turned by its autorotate), scaled.
    static func ffmpegPicture(_ file: String, width: Int, height: Int) throws -> RGBAImage {
        let bytes = try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-i", file, "-frames:v", "1",
                                                                      "-vf", "scale=\(width):\(height)", "-f", "rawvideo",
                                                                      "-pix_fmt", "rgba", "-"])
        return try image(bytes, width: width, height: height)
    }

    static func decodePNG(_ path: String, width: Int, height: Int) throws -> RGBAImage {
        try image(try ExternalProgram.run(TestPrograms.tool("ffmpeg"), ["-v", "error", "-i", path, "-f", "rawvideo",
                                                                    "-pix_fmt", "rgba", "-"]), width: width, height: height)
    }

    private static func image(_ bytes: Data, width: Int, height: Int) throws -> RGBAImage {
        guard bytes.count == width * height * 4 else {
            throw ExternalProgram.Failed(message: "ffmpeg gave \(bytes.count) bytes for a \(width)x\(height) picture")
        }
        return RGBAImage(width: width, height: height, pixels: [UInt8](bytes))
    }
}
