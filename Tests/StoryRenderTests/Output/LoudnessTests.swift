import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryRender
@testable import StoryEncode
import StoryPlayerTestSupport
import XCTest

/// `--loudness`: the MP4's sound brought to a target, as ffmpeg's own EBU R128 meter measures
/// the file written (the AAC decoded), not as the render says it did.
final class LoudnessTests: XCTestCase {
    static let ffmpeg = "/usr/bin/ffmpeg"

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.ffmpeg), "needs the ffmpeg CLI")
    }

    // MARK: - Media and measurement

    /// What `ffmpeg -af ebur128=peak=true` prints in its summary: integrated loudness (LUFS)
    /// and true peak (dBTP); −70 is its "nothing measured".
    static func measure(_ path: String) throws -> (lufs: Double, truePeak: Double) {
        let outcome = try ExternalProgram.outcome(ffmpeg, ["-hide_banner", "-nostats", "-i", path, "-vn",
                                                            "-af", "ebur128=peak=true", "-f", "null", "-"])
        let text = String(decoding: outcome.stderr, as: UTF8.self)
        XCTAssertEqual(outcome.status, 0, text)
        // The summary comes last: "I:  -14.0 LUFS" and, under "True peak:", "Peak:  -3.2 dBFS".
        guard let summary = text.range(of: "Summary:", options: .backwards) else { throw ExternalProgram.Failed(message: text) }
        func figure(after label: String) -> Double? {
            guard let start = text.range(of: label, range: summary.upperBound..<text.endIndex) else { return nil }
            let rest = text[start.upperBound...].drop { $0 == " " }
            return Double(rest.prefix { !$0.isWhitespace })
        }
        guard let lufs = figure(after: "I:"), let peak = figure(after: "Peak:") else { throw ExternalProgram.Failed(message: text) }
        return (lufs, peak)
    }

    /// A 180x320 video of `seconds` with a 1 kHz tone (ffmpeg's `sine` is at −18 dBFS, which a
    /// stereo tone of that frequency measures as −18 LUFS) moved by `gain` dB, plus `extra`
    /// mixed in (an `aevalsrc` expression), or silence when `gain` is nil.
    static func video(_ name: String, gain: Double?, clicks: Bool = false, seconds: Double = 2,
                      in folder: ScratchFolder) throws -> String {
        let path = folder.file(name)
        var sound = "anullsrc=r=48000:cl=stereo:d=\(seconds)"
        if let gain {
            sound = "sine=frequency=1000:sample_rate=48000:duration=\(seconds),volume=\(gain)dB,pan=stereo|c0=c0|c1=c0"
            // Clicks near full scale every half second: a true peak far above the tone's.
            if clicks {
                sound = "sine=frequency=1000:sample_rate=48000:duration=\(seconds),volume=\(gain)dB[t];"
                    + "aevalsrc=0.9*lt(mod(t\\,0.5)\\,0.0004):s=48000:d=\(seconds)[c];[t][c]amix=inputs=2:normalize=0,"
                    + "pan=stereo|c0=c0|c1=c0"
            }
        }
        try ExternalProgram.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=teal:s=180x320:r=10:d=\(seconds)",
                                         "-f", "lavfi", "-i", sound, "-shortest", "-c:v", "libx264", "-preset", "ultrafast",
                                         "-c:a", "pcm_s16le", "-f", "matroska", path])
        return path
    }

    /// Renders `videos`, one story each, to an MP4 with `--loudness`.
    func renderClip(_ videos: [String], target: LoudnessTarget, seconds: Double, in folder: ScratchFolder)
        throws -> (summary: RenderSummary, clip: String) {
        let stories = videos.enumerated().map { "{\"id\": \"s\($0.offset)\", \"items\": [{\"uri\": \"\($0.element)\"}]}" }
        let script = videos.count > 1 ? ", \"script\": [{\"at\": \(seconds / 2), \"action\": \"swipe\", \"direction\": \"next\"}]" : ""
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": \(seconds), "transition": {"duration": 0.3},
         "stories": [\(stories.joined(separator: ", "))]\(script)}
        """)
        let clip = folder.file("clip.mp4")
        let (summary, _, _) = try render(board, into: folder) { options in
            options.writeFrames = false
            options.clip = ClipOptions(path: clip)
            options.loudness = target
        }
        return (summary, clip)
    }

    // MARK: - Tests

    /// The issue's test: sources at −30 and −6 LUFS, each rendered alone and the two in one
    /// clip, come out at −14 ± 1 LUFS with a true peak at most −1 dBTP.
    func testQuietAndLoudSourcesComeOutAtTheTarget() throws {
        let media = ScratchFolder()
        let quiet = try Self.video("quiet.mkv", gain: -12, in: media)
        let loud = try Self.video("loud.mkv", gain: 12, in: media)
        XCTAssertEqual(try Self.measure(quiet).lufs, -30, accuracy: 0.5, "the quiet source")
        XCTAssertEqual(try Self.measure(loud).lufs, -6, accuracy: 0.5, "the loud source")
        for (name, videos) in [("quiet", [quiet]), ("loud", [loud]), ("both", [quiet, loud])] {
            let output = ScratchFolder()
            let (summary, clip) = try renderClip(videos, target: LoudnessTarget(lufs: -14), seconds: 2, in: output)
            let measured = try Self.measure(clip)
            XCTAssertEqual(measured.lufs, -14, accuracy: 1, "\(name): ffmpeg measures the clip")
            XCTAssertLessThanOrEqual(measured.truePeak, -1, "\(name): true peak")
            let figures = try XCTUnwrap(summary.loudness, name)
            XCTAssertFalse(figures.limitedByTruePeak, name)
            // What summary.json says is what ffmpeg says of the file.
            XCTAssertEqual(try XCTUnwrap(figures.outputLUFS), measured.lufs, accuracy: 0.2, name)
            XCTAssertEqual(figures.outputTruePeak, measured.truePeak, accuracy: 0.2, name)
            XCTAssertEqual(figures.gainDB, -14 - (try XCTUnwrap(figures.inputLUFS)), accuracy: 0.001, name)
        }
    }

    /// Loud clicks over a quiet tone: the gain the target asks for would push the clicks over
    /// full scale, so it stops at the true peak limit, and the summary says the clip is
    /// quieter than the target.
    func testTheTruePeakLimitsTheGain() throws {
        let media = ScratchFolder()
        let clicks = try Self.video("clicks.mkv", gain: -12, clicks: true, in: media)
        let output = ScratchFolder()
        let (summary, clip) = try renderClip([clicks], target: .ebu, seconds: 2, in: output)
        let measured = try Self.measure(clip)
        XCTAssertLessThanOrEqual(measured.truePeak, -1, "the limit holds after AAC")
        XCTAssertGreaterThan(measured.truePeak, -3, "the gain went as far as the limit allows")
        let figures = try XCTUnwrap(summary.loudness)
        XCTAssertTrue(figures.limitedByTruePeak)
        XCTAssertLessThan(measured.lufs, -23 - 1, "quieter than the target")
        XCTAssertTrue(summary.notices.contains { $0.contains("--loudness") && $0.contains("quieter than the target") }, "\(summary.notices)")
        XCTAssertTrue(summary.json.contains("\"limited_by_true_peak\": true"), summary.json)
    }

    /// Silence has no loudness: no gain, `null` in summary.json (never NaN or -inf), a notice.
    func testSilenceIsLeftAsItIs() throws {
        let media = ScratchFolder()
        let silent = try Self.video("silent.mkv", gain: nil, in: media)
        let (summary, _) = try renderClip([silent], target: LoudnessTarget(lufs: -14), seconds: 1, in: ScratchFolder())
        let figures = try XCTUnwrap(summary.loudness)
        XCTAssertNil(figures.inputLUFS)
        XCTAssertEqual(figures.gainDB, 0)
        let json = summary.json
        XCTAssertTrue(json.contains("\"input_lufs\": null"), json)
        XCTAssertFalse(json.contains("nan") || json.contains("inf"), json)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(json.utf8)))
        XCTAssertTrue(summary.notices.contains { $0.contains("silent") }, "\(summary.notices)")
    }

    /// The meter agrees with the ffmpeg CLI's `ebur128` on a file.
    func testTheMeterAgreesWithFFmpeg() throws {
        let media = ScratchFolder()
        let quiet = try Self.video("quiet.mkv", gain: -12, clicks: true, in: media)
        let ours = try LoudnessMeter.measure(file: quiet)
        let theirs = try Self.measure(quiet)
        XCTAssertEqual(try XCTUnwrap(ours.integrated), theirs.lufs, accuracy: 0.1)
        XCTAssertEqual(ours.truePeak, theirs.truePeak, accuracy: 0.1)
        XCTAssertEqual(LoudnessMeter.alive.load(ordering: .relaxed), 0, "the meters are freed")
    }

    /// The MP4 is still interleaved although its sound is written after its last frame: the
    /// muxer held the video until the sound came, so the file alternates between short runs of
    /// each. Without that, past the muxer's 10 s interleaving window the video is written
    /// alone (a 30 s clip began with 18 s of video, then 18 s of sound); 25 s shows it.
    func testTheClipIsInterleaved() throws {
        let media = ScratchFolder()
        let tone = try Self.video("tone.mkv", gain: -12, seconds: 25, in: media)
        let output = ScratchFolder()
        let (_, clip) = try renderClip([tone], target: LoudnessTarget(lufs: -14), seconds: 25, in: output)
        let packets = try ExternalProgram.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "packet=codec_type,pos",
                                                                  "-of", "csv=p=0", clip])
        let kinds = String(decoding: packets, as: UTF8.self).split(separator: "\n").compactMap { line -> (String, Int)? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let position = Int(fields[1]) else { return nil }
            return (String(fields[0]), position)
        }.sorted { $0.1 < $1.1 }.map(\.0)
        XCTAssertEqual(kinds.filter { $0 == "video" }.count, 250)
        // The longest run of video packets in file order, at 10 fps.
        var longest = 0, run = 0
        for kind in kinds {
            run = kind == "video" ? run + 1 : 0
            longest = max(longest, run)
        }
        XCTAssertLessThanOrEqual(longest, 10, "no more than a second of video without sound beside it")
    }
}
