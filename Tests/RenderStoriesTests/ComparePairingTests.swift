import Compositor
import Foundation
import XCTest

/// `frames.jsonl` (what each frame showed) and `compare`'s pairing by it: frames are paired by
/// the same page offset, stories and pictures on the faces, every pair is measured, and
/// `--face` measures each cube face on its own.
final class ComparePairingTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func records(_ render: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: (render as NSString).appendingPathComponent("frames.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func faces(_ record: [String: Any]) -> [[String: Any]] { record["faces"] as? [[String: Any]] ?? [] }

    /// A render of two photo stories with a cube swipe at 0.5 s (10 fps, turn 0.5 s): a line a
    /// frame, one face at rest and two mid-turn, their corners on the frame, the photos' picture
    /// at media time 0, the page offset from 0 to 1.
    func testARenderRecordsWhatEachFrameShowed() throws {
        let render = try SwipeRenders(cli: cli, folder: folder).render("a", swipeAt: 0.5)
        let lines = try records(render)
        XCTAssertEqual(lines.count, 20)
        XCTAssertEqual(lines.map { $0["frame"] as? Int }, Array(0..<20))
        let first = lines[0]
        XCTAssertEqual(first["page"] as? Double, 0)
        XCTAssertEqual(faces(first).map { $0["story"] as? String }, ["one"])
        XCTAssertEqual(faces(first)[0]["shows"] as? String, "picture")
        XCTAssertEqual(faces(first)[0]["media_t"] as? Double, 0)
        XCTAssertNil(faces(first)[0]["bar"], "no overlay drawn: no bar")
        XCTAssertEqual(faces(first)[0]["quad"] as? [[Double]], [[0, 0], [90, 0], [90, 160], [0, 160]])

        let turning = try XCTUnwrap(lines.first { ($0["page"] as? Double).map { $0 > 0.3 && $0 < 0.7 } ?? false })
        XCTAssertEqual(faces(turning).map { $0["story"] as? String }, ["one", "two"])
        let quads = faces(turning).compactMap { $0["quad"] as? [[Double]] }
        XCTAssertEqual(quads.count, 2)
        // The shared edge: the first face's right corners are the second's left ones.
        XCTAssertEqual(quads[0][1][0], quads[1][0][0], accuracy: 0.02)
        XCTAssertTrue(quads[0][1][0] > 10 && quads[0][1][0] < 80, "\(quads)")
        XCTAssertEqual(lines.last?["page"] as? Double, 1)
        XCTAssertEqual(faces(lines.last!).map { $0["story"] as? String }, ["two"])
    }

    /// The same showing drawn differently (story two's photo changed between the renders): the
    /// frames pair by the trace one to one, those before the turn are the same, every frame
    /// showing two is changed; with --face, mid-turn, story one's face is the same and two's not.
    func testTheSameShowingDrawnDifferentlyIsPairedByTheTraceAndMeasuredPerFace() throws {
        let renders = SwipeRenders(cli: cli, folder: folder)
        let a = try renders.render("a", swipeAt: 0.5)
        var changed = RGBAImage(width: 45, height: 80, fill: RGBAColor(red: 40, green: 200, blue: 90))
        changed.fill(.white, columns: 5..<20, rows: 20..<50)
        try changed.writePNG(to: folder.file("two.png"))
        let b = try renders.render("b", swipeAt: 0.5)

        let result = try cli.run(["compare", a, b, "--json", "--face"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["pairing"] as? String, "trace")
        let frames = try XCTUnwrap(report["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.count, 20)
        XCTAssertEqual(frames.compactMap { $0["a"] as? Int }, frames.compactMap { $0["b"] as? Int }, "one to one")
        XCTAssertEqual(frames[0]["verdict"] as? String, "same")
        XCTAssertEqual(frames[19]["verdict"] as? String, "changed")
        let recordsA = try records(a)
        let mid = try XCTUnwrap(recordsA.firstIndex { (($0["page"] as? Double) ?? 0) > 0.3 && (($0["page"] as? Double) ?? 1) < 0.7 })
        XCTAssertEqual(frames[mid]["verdict"] as? String, "changed")
        let faceFigures = try XCTUnwrap(frames[mid]["faces"] as? [[String: Any]])
        XCTAssertEqual(faceFigures.map { $0["story"] as? String }, ["one", "two"])
        let ssimOne = try XCTUnwrap(faceFigures[0]["ssim"] as? Double), ssimTwo = try XCTUnwrap(faceFigures[1]["ssim"] as? Double)
        XCTAssertLessThan(ssimTwo, 0.9, "story two's face changed")
        XCTAssertGreaterThan(ssimOne, ssimTwo, "story one's face did not (its box holds the shared edge)")
        XCTAssertEqual((faceFigures[0]["box"] as? [String: Int])?["x"], 0)

        // With --region, each face's box is cut to it: story one's right part only.
        let cut = try cli.run(["compare", a, b, "--json", "--face", "--region", "0,0,30,160"])
        let cutFrames = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(cut.stdout.utf8)) as? [String: Any])?["frames"]
                                      as? [[String: Any]])
        let cutBoxes = (cutFrames[mid]["faces"] as? [[String: Any]])?.compactMap { $0["box"] as? [String: Int] } ?? []
        XCTAssertEqual(cutBoxes.count, 2)
        XCTAssertTrue(cutBoxes.allSatisfy { ($0["x"] ?? -1) >= 0 && ($0["x"] ?? 0) + ($0["width"] ?? 99) <= 30 }, "\(cutBoxes)")

        // A face under --min-ssim fails its frame though the whole frame passes.
        let wholeSSIM = try XCTUnwrap(frames[mid]["ssim"] as? Double)
        let threshold = (wholeSSIM + ssimTwo) / 2
        XCTAssertGreaterThan(wholeSSIM, ssimTwo)
        let perFace = try cli.run(["compare", a, b, "--json", "--face", "--min-ssim", "\(threshold)"])
        let perFaceFrames = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(perFace.stdout.utf8)) as? [String: Any])?["frames"]
                                          as? [[String: Any]])
        XCTAssertEqual(perFaceFrames[mid]["verdict"] as? String, "changed")
        let wholeOnly = try cli.run(["compare", a, b, "--json", "--min-ssim", "\(threshold)"])
        let wholeFrames = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(wholeOnly.stdout.utf8)) as? [String: Any])?["frames"]
                                        as? [[String: Any]])
        XCTAssertEqual(wholeFrames[mid]["verdict"] as? String, "same", "the whole frame alone is within the threshold")
    }

    /// Frame files of other bytes holding the same pictures (written at another PNG level) pair
    /// by the trace and are the same: every pair is decoded and measured, none taken as changed.
    func testTheSamePicturesInOtherBytesAreTheSame() throws {
        let renders = SwipeRenders(cli: cli, folder: folder)
        let a = try renders.render("a", swipeAt: 0.5)
        let b = try renders.render("b", swipeAt: 0.5, options: ["--png-level", "9", "--png-strategy", "default"])
        let bytesA = try Data(contentsOf: URL(fileURLWithPath: a + "/frame-000010.png"))
        let bytesB = try Data(contentsOf: URL(fileURLWithPath: b + "/frame-000010.png"))
        XCTAssertNotEqual(bytesA, bytesB)
        let result = try cli.run(["compare", a, b, "--json"])
        XCTAssertEqual(result.status, 0, result.stdout)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["pairing"] as? String, "trace")
    }

    /// While the viewer opens from its bubble, the faces' corners are where the scaled frame
    /// puts them: inside the frame, smaller than it, growing to the whole frame.
    func testCornersFollowTheViewerOpening() throws {
        let out = folder.file("demo")
        XCTAssertEqual(try cli.run(["render", cli.demo, "--size", "72x128", "--duration", "1", "--quiet", "--output", out]).status, 0)
        let lines = try records(out)
        let opening = try XCTUnwrap(lines.first { (($0["open"] as? Double) ?? 1) < 0.5 })
        let quad = try XCTUnwrap(faces(opening).first?["quad"] as? [[Double]])
        let width = quad[1][0] - quad[0][0]
        XCTAssertTrue(width > 0 && width < 72, "\(quad)")
        XCTAssertTrue(quad.allSatisfy { $0[0] >= 0 && $0[0] <= 72 && $0[1] >= 0 && $0[1] <= 128 }, "\(quad)")
        let open = try XCTUnwrap(lines.last { ($0["open"] as? Double) == 1 })
        XCTAssertEqual(faces(open).first?["quad"] as? [[Double]], [[0, 0], [72, 0], [72, 128], [0, 128]])
    }

    /// --face needs a record of the faces: two clips have none (a usage error, exit 2).
    func testFaceWithoutRecordsIsAUsageError() throws {
        let renders = SwipeRenders(cli: cli, folder: folder)
        let a = try renders.render("a", swipeAt: 0.5, options: ["--mp4", folder.file("a.mp4")])
        // The folder's records serve the clip's frames (lossy: changed, exit 1, each face measured).
        let served = try cli.run(["compare", folder.file("a.mp4"), a, "--face", "--json"])
        XCTAssertEqual(served.status, 1, served.stderr)
        let frames = (try JSONSerialization.jsonObject(with: Data(served.stdout.utf8)) as? [String: Any])?["frames"] as? [[String: Any]]
        XCTAssertEqual((frames?.first?["faces"] as? [[String: Any]])?.first?["story"] as? String, "one")
        let result = try cli.run(["compare", folder.file("a.mp4"), folder.file("a.mp4"), "--face"])
        XCTAssertEqual(result.status, 2, result.stdout)
        XCTAssertTrue(result.stderr.contains("--face needs a render folder with its frames.jsonl"), result.stderr)
    }

    /// Shards each record their own frames; their merge records the whole render's, as a
    /// whole render does.
    func testAMergeJoinsTheShardsRecords() throws {
        let whole = folder.file("whole"), small = ["--size", "72x128", "--duration", "2", "--quiet"]
        XCTAssertEqual(try cli.run(["render", cli.demo, "--output", whole] + small).status, 0)
        var shards: [String] = []
        for range in ["0..25", "25..60"] {
            let out = folder.file("shard-" + range)
            XCTAssertEqual(try cli.run(["render", cli.demo, "--frames", range, "--output", out] + small).status, 0)
            XCTAssertEqual(try records(out).count, range == "0..25" ? 25 : 35)
            shards.append(out)
        }
        let merged = folder.file("merged")
        let result = try cli.run(["merge"] + shards + ["--output", merged])
        XCTAssertEqual(result.status, 0, result.stderr)
        let joined = try String(contentsOfFile: merged + "/frames.jsonl", encoding: .utf8)
        XCTAssertEqual(joined, try String(contentsOfFile: whole + "/frames.jsonl", encoding: .utf8))
    }
}
