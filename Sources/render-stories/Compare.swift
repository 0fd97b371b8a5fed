import ArgumentParser
import Foundation
import StoryPlayer

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two renders frame by frame: SSIM and PSNR a frame, and a verdict to gate CI on.",
        discussion: """
        A and B are each a render's folder (its frame-NNNNNN.png files) or a clip (an MP4, WebM, \
        any video FFmpeg reads). The frames are aligned by their content first, as diff aligns \
        lines: the cheapest script of frames deleted from A, inserted into B and changed in \
        place, so a dropped frame is one deletion and the rest stay paired with their equals. \
        Each changed pair is turned into YUV 4:2:0 (BT.709) and measured as x264 and FFmpeg's \
        ssim and psnr filters measure it: SSIM per plane and of the whole (planes weighed \
        4:1:1), PSNR in dB (none when no sample differs). Frames are named by the numbers in \
        their files (a clip's from 0).

        A pair is changed when any pixel differs, or, with --min-ssim or --min-psnr, when it is \
        below either. The comparison passes when the changed, inserted and deleted frames are \
        no more than --max-changed-frames (default 0).

        Two render folders' traces (lifecycle.jsonl) are compared too: their events are aligned \
        by who they are about (event, story, item, player, participant, media, output), and an \
        event only one has, or the same event with other values (a player created a frame \
        later, another live_offset_ms), is a difference, with the frame it belongs to. Fields \
        timed by the wall clock (wall, open_ms, first_packet_ms, first_frame_ms) never count; \
        --ignore-trace-field names more. Any trace difference fails the comparison.

        Exit status: 0 passed, 1 failed, 2 usage error or a side that cannot be read.
        """
    )

    @Argument(help: "The render compared against (a folder of frames, or a clip).")
    var a: String

    @Argument(help: "The render compared (a folder of frames, or a clip).")
    var b: String

    @Option(help: ArgumentHelp("Writes compare.json (every frame's figures) and compare.html (the two renders and their difference side by side, the SSIM curve, the alignment and the traces' differences; the difference pictures in diff/, a clip's changed frames in frames/) into this folder.", valueName: "folder"))
    var output: String?

    @OptionGroup var thresholds: ComparisonArguments

    @Flag(help: "Print the report as JSON (every frame's figures) instead of text.")
    var json = false

    func run() throws {
        let options = thresholds.options
        let report: ComparisonReport
        do {
            ProcessMemory.reuseFreedBuffers()
            report = try RenderComparison.run(a, b, options: options, pageFolder: output)
            if let output { try report.write(to: output) }
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        print(json ? report.json : report.text(), terminator: json ? "" : "\n")
        if !report.passed { throw ExitCode(1) }
    }
}
