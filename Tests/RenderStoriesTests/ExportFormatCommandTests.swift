import Compositor
import Foundation
import XCTest

/// `render --mp4 --codec hevc`, `--webm`, `--gif`, `--webp`, `--apng`: each file decoded again
/// by ffprobe and ffmpeg (or, for the WebP, read chunk by chunk: FFmpeg 5.1 cannot decode an
/// animated WebP), with its frame count and size.
final class ExportFormatCommandTests: XCTestCase {
    let cli = CommandLineRunner()

    /// Codec, frame count (decoded: `-count_frames`) and size of a file's video, as ffprobe says.
    func probe(_ path: String) throws -> (codec: String, frames: Int, width: Int, height: Int) {
        let data = try ExternalProgram.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                                "-show_entries", "stream=codec_name,nb_read_frames,width,height",
                                                                "-of", "json", path])
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let stream = try XCTUnwrap((root["streams"] as? [[String: Any]])?.first, path)
        return (stream["codec_name"] as? String ?? "", Int(stream["nb_read_frames"] as? String ?? "") ?? -1,
                stream["width"] as? Int ?? 0, stream["height"] as? Int ?? 0)
    }

    /// The canvas size (VP8X), the frames (ANMF chunks) and their durations summed (ms) of an
    /// animated WebP. libwebp merges a frame into the one before when it shows the same picture.
    func webpAnimation(_ path: String) throws -> (frames: Int, width: Int, height: Int, milliseconds: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(Array(bytes[0..<4]), Array("RIFF".utf8))
        XCTAssertEqual(Array(bytes[8..<12]), Array("WEBP".utf8))
        var offset = 12, frames = 0, width = 0, height = 0, milliseconds = 0
        func le(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        while offset + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = le(offset + 4, 4)
            if fourCC == "VP8X" {
                width = le(offset + 12, 3) + 1
                height = le(offset + 15, 3) + 1
            }
            if fourCC == "ANMF" {
                frames += 1
                milliseconds += le(offset + 8 + 12, 3)
            }
            offset += 8 + size + size % 2
        }
        return (frames, width, height, milliseconds)
    }

    /// Found by an audit: an animation at a higher rate than the render's lost its last
    /// interval (a 3 s render at 10 fps gave a 15 fps GIF of 44 pictures, 2.93 s), because the
    /// filters' end fell at the last frame's own time instead of where its time ends. Each
    /// animation holds the render's whole length now.
    func testAnAnimationFasterThanTheRenderLastsAsLongAsIt() throws {
        let folder = ScratchFolder()
        let result = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--size", "180x320", "--fps", "10",
                                  "--duration", "3", "--no-png", "--quiet", "--gif", folder.file("a.gif"), "--webp", folder.file("a.webp"),
                                  "--apng", folder.file("a.apng"), "--anim-width", "90", "--anim-fps", "15"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for file in ["a.gif", "a.apng"] { XCTAssertEqual(try probe(folder.file(file)).frames, 45, file) }
        XCTAssertEqual(try webpAnimation(folder.file("a.webp")).milliseconds, 3000, accuracy: 34, "a frame's length at 15 fps, rounded")
    }

    /// `--no-png` into a folder of an earlier PNG render leaves every frame there and says so.
    /// Before, it removed the frames past its own count and kept the rest without a word: a
    /// folder whose first frames came from another render.
    func testNoPNGLeavesAnEarlierRendersFramesAndSaysSo() throws {
        let folder = ScratchFolder()
        let out = folder.file("out")
        let first = try cli.run(["render", cli.demo, "--output", out, "--size", "90x160", "--fps", "10", "--duration", "1.5", "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let names = { try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("frame-") }.sorted() }
        let before = try names()
        XCTAssertEqual(before.count, 15)
        let second = try cli.run(["render", cli.demo, "--output", out, "--size", "90x160", "--fps", "10", "--duration", "1",
                                  "--no-png", "--mp4", folder.file("a.mp4")])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try names(), before, "every earlier frame is left as it was")
        XCTAssertTrue(second.stderr.contains("holds 15 frame PNGs from an earlier render"), second.stderr)

        // A PNG render still replaces the folder's frames: none is left past its own.
        let third = try cli.run(["render", cli.demo, "--output", out, "--size", "90x160", "--fps", "10", "--duration", "1", "--quiet"])
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertEqual(try names().count, 10)
        XCTAssertFalse(third.stderr.contains("earlier render"), third.stderr)
    }

    func testEveryFormatDecodesWithItsFrameCountAndSize() throws {
        let folder = ScratchFolder()
        // 2 s at 10 fps: 20 frames at 180x320; the animations at 90 px wide and 5 fps: 10 frames at 90x160.
        let result = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--size", "180x320", "--fps", "10",
                                  "--duration", "2", "--no-png", "--quiet",
                                  "--mp4", folder.file("a.mp4"), "--codec", "hevc", "--webm", folder.file("a.webm"),
                                  "--gif", folder.file("a.gif"), "--webp", folder.file("a.webp"), "--apng", folder.file("a.apng"),
                                  "--anim-width", "90", "--anim-fps", "5"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let hevc = try probe(folder.file("a.mp4"))
        XCTAssertEqual(hevc.codec, "hevc")
        XCTAssertEqual(hevc.frames, 20)
        XCTAssertEqual([hevc.width, hevc.height], [180, 320])
        let tag = String(decoding: try ExternalProgram.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                             "stream=codec_tag_string", "-of", "csv=p=0", folder.file("a.mp4")]),
                         as: UTF8.self)
        XCTAssertEqual(tag.trimmingCharacters(in: .whitespacesAndNewlines), "hvc1", "Apple's players need the hvc1 tag")
        let vp9 = try probe(folder.file("a.webm"))
        XCTAssertEqual(vp9.codec, "vp9")
        XCTAssertEqual(vp9.frames, 20)
        XCTAssertEqual([vp9.width, vp9.height], [180, 320])
        let sound = try ExternalProgram.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                                 "stream=codec_name,sample_rate", "-of", "csv=p=0", folder.file("a.webm")])
        XCTAssertEqual(String(decoding: sound, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "opus,48000")
        for (file, codec) in [("a.gif", "gif"), ("a.apng", "apng")] {
            let animation = try probe(folder.file(file))
            XCTAssertEqual(animation.codec, codec)
            XCTAssertEqual(animation.frames, 10, file)
            XCTAssertEqual([animation.width, animation.height], [90, 160], file)
        }
        let webp = try webpAnimation(folder.file("a.webp"))
        XCTAssertEqual(webp.frames, 10)
        XCTAssertEqual([webp.width, webp.height], [90, 160])
    }

    func testWebMInAV1WhereSVTAV1IsPresent() throws {
        let encoders = String(decoding: try ExternalProgram.run("/usr/bin/ffmpeg", ["-hide_banner", "-encoders"]), as: UTF8.self)
        guard encoders.contains("libsvtav1") else { throw XCTSkip("this FFmpeg has no SVT-AV1") }
        let folder = ScratchFolder()
        let result = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--size", "180x320", "--fps", "10",
                                  "--duration", "1", "--no-png", "--quiet", "--webm", folder.file("a.webm"), "--webm-codec", "av1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // --quiet prints errors only: SVT-AV1's banner ("Svt[info]: …", found by an audit) too.
        XCTAssertFalse(result.stderr.contains("Svt["), result.stderr)
        let av1 = try probe(folder.file("a.webm"))
        XCTAssertEqual(av1.codec, "av1")
        XCTAssertEqual(av1.frames, 10)
        XCTAssertEqual([av1.width, av1.height], [180, 320])
    }

    /// The GIF at the canvas's size and rate, frame for frame beside the PNGs of the same render:
    /// a palette of 256 colours with dithering stays within 3 levels (of 255) per channel, on
    /// average over a frame's pixels (measured on the demo at 180x320: 0.83 and 0.92).
    func testGIFMeanErrorAgainstThePNGFramesIsBounded() throws {
        let folder = ScratchFolder()
        let out = folder.file("out")
        let result = try cli.run(["render", cli.demo, "--output", out, "--size", "180x320", "--fps", "10", "--duration", "2",
                                  "--quiet", "--gif", folder.file("a.gif"), "--anim-width", "180", "--anim-fps", "10"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for frame in [5, 15] {
            let decoded = folder.file("gif-\(frame).png")
            try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-i", folder.file("a.gif"), "-vf", "select=eq(n\\,\(frame))",
                                                        "-frames:v", "1", "-pix_fmt", "rgba", decoded])
            let gif = try RGBAImage(contentsOfPNG: decoded)
            let png = try RGBAImage(contentsOfPNG: out + String(format: "/frame-%06d.png", frame))
            XCTAssertEqual([gif.width, gif.height], [png.width, png.height])
            var total = 0, count = 0
            for i in 0..<(png.width * png.height) {
                for channel in 0..<3 {
                    total += abs(Int(gif.pixels[i * 4 + channel]) - Int(png.pixels[i * 4 + channel]))
                    count += 1
                }
            }
            let mean = Double(total) / Double(count)
            // The bound: 3 of 255 per channel, three times what was measured. A GIF made with the
            // wrong palette (or none) is off by tens; dithering alone costs about one level.
            XCTAssertLessThan(mean, 3, "frame \(frame): mean error \(mean)")
            XCTAssertGreaterThan(mean, 0, "a GIF is not lossless: frame \(frame) was not compared with its own picture")
        }
    }

    /// Shards' MP4 and WebM clips join into every frame (scripts/join-segments.sh, as
    /// render-sharded.sh and the Slurm merge join them): the pictures copied, each starting on a
    /// keyframe of a closed GOP, and the sound in step with a whole render's at every join.
    ///
    /// Found by an audit: joined with `ffmpeg -f concat -c copy`, each segment's sound brought
    /// its encoder's priming and its last frame's padding, so the sound ran 21-32 ms later at
    /// every join, with 20 ms of silence there. The clip's sound here is noise, so a shift of
    /// a millisecond takes its likeness to the whole render's sound from about 1 to about 0.
    func testMP4AndWebMShardsJoinInStepWithAWholeRender() throws {
        let folder = ScratchFolder()
        let clip = folder.file("noise.mp4")
        try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=180x320:r=10:d=3",
                                                    "-f", "lavfi", "-i", "anoisesrc=d=3:c=pink:seed=7:a=0.3", "-shortest",
                                                    "-c:v", "libx264", "-g", "10", "-c:a", "aac", clip])
        let board = folder.file("board.json")
        try Data(#"{"canvas": {"width": 180, "height": 320, "fps": 10}, "duration": 3, "stories": [{"id": "n", "items": [{"uri": "noise.mp4"}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: board))
        let whole = try cli.run(["render", board, "--output", folder.file("whole"), "--no-png", "--quiet",
                                 "--mp4", folder.file("whole.mp4"), "--webm", folder.file("whole.webm")])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        let ranges = ["0..10", "10..20", "20..30"]
        for range in ranges {
            let result = try cli.run(["render", board, "--output", folder.file(range), "--frames", range, "--no-png", "--quiet",
                                      "--mp4", folder.file(range + ".mp4"), "--webm", folder.file(range + ".webm")])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let join = CommandLineTests.packageRoot.appendingPathComponent("scripts/join-segments.sh").path
        for (format, codec) in [("mp4", "h264"), ("webm", "vp9")] {
            let joined = folder.file("joined." + format)
            try ExternalProgram.run(join, [joined] + ranges.map { folder.file($0 + "." + format) })
            let probed = try probe(joined)
            XCTAssertEqual(probed.codec, codec)
            XCTAssertEqual(probed.frames, 30, format)
            let reference = try sound(folder.file("whole." + format)), sound = try sound(joined)
            XCTAssertEqual(Double(sound.count) / 48000, Double(reference.count) / 48000, accuracy: 0.011, "\(format): the sound's length")
            // Just after each join, and at the end.
            for start in [1.01, 2.01, 2.6] {
                let window = Int(start * 48000)..<Int((start + 0.3) * 48000)
                XCTAssertGreaterThan(likeness(sound, reference, window), 0.8, "\(format): the sound at \(start) s is the whole render's")
            }
        }
    }

    /// The first channel of `file`'s sound, decoded by ffmpeg at 48 kHz.
    private func sound(_ file: String) throws -> [Float] {
        let bytes = try ExternalProgram.run("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-map", "0:a", "-ac", "1", "-ar", "48000",
                                                                "-f", "f32le", "-"])
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The normalised correlation of `a` and `b` over `window` (1: the same sound, in step).
    private func likeness(_ a: [Float], _ b: [Float], _ window: Range<Int>) -> Double {
        guard window.upperBound <= min(a.count, b.count) else { return 0 }
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in window { ab += Double(a[i] * b[i]); aa += Double(a[i] * a[i]); bb += Double(b[i] * b[i]) }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    func testAnimationsRefuseShardsNamingTheFlag() throws {
        let folder = ScratchFolder()
        for flag in ["--gif", "--webp", "--apng"] {
            let file = folder.file("a." + (flag == "--gif" ? "gif" : String(flag.dropFirst(2))))
            let result = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--size", "90x160", "--fps", "5",
                                      "--frames", "0..5", "--no-png", flag, file])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertTrue(result.stderr.contains(flag) && result.stderr.contains("--frames"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        }
    }

    func testUsageErrorsNameTheFlag() throws {
        let folder = ScratchFolder()
        let cases: [([String], String)] = [
            (["--gif", folder.file("a.png")], "--gif"),
            (["--codec", "hevc"], "--codec"),
            (["--webm", folder.file("a.webm"), "--crf", "70"], "--crf"),
            (["--gif", folder.file("a.gif"), "--anim-fps", "0"], "--anim-fps"),
        ]
        for (arguments, flag) in cases {
            let result = try cli.run(["render", cli.demo, "--output", folder.file("out")] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(flag), "\(arguments): \(result.stderr)")
        }
    }

    /// Found by an audit: a GIF at 60 fps got a 1/100 s delay on every third frame, which
    /// browsers show as 1/10 s (a 4 s GIF played 11 s). Over 50 fps, --gif is refused, saying
    /// why; the WebP and APNG, whose delays are in milliseconds, still take 60.
    func testAGIFFasterThan50FramesASecondIsRefused() throws {
        let folder = ScratchFolder()
        let gif = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--gif", folder.file("a.gif"), "--anim-fps", "60"])
        XCTAssertEqual(gif.status, 2, gif.stderr)
        XCTAssertTrue(gif.stderr.contains("--anim-fps 60 is too fast for --gif"), gif.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out")), "nothing was rendered")
        let webp = try cli.run(["render", cli.demo, "--output", folder.file("w"), "--duration", "0.2", "--size", "90x160", "--quiet",
                                "--webp", folder.file("a.webp"), "--anim-fps", "60", "--anim-width", "90"])
        XCTAssertEqual(webp.status, 0, webp.stderr)
    }

    /// `--no-png` with only a contact sheet (or a timeline) writes it: the audit's run was
    /// refused with "otherwise nothing would be written", which was not so.
    func testNoPNGWithAContactSheetWritesTheSheet() throws {
        let folder = ScratchFolder()
        let result = try cli.run(["render", cli.demo, "--output", folder.file("out"), "--duration", "1", "--size", "90x160",
                                  "--no-png", "--quiet", "--contact-sheet", folder.file("sheet.png")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("sheet.png")))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("out"))
        XCTAssertFalse(names.contains { $0.hasPrefix("frame-") }, "\(names)")
        let bare = try cli.run(["render", cli.demo, "--output", folder.file("bare"), "--no-png"])
        XCTAssertEqual(bare.status, 2, bare.stderr)
        XCTAssertTrue(bare.stderr.contains("--contact-sheet or --timeline"), bare.stderr)
    }
}
