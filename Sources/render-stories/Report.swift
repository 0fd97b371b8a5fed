import ArgumentParser
import Foundation
import StoryPlayer

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write OUT_DIR/report.html: the frames in a player, the lifecycle beside them, the summary.",
        discussion: """
        Reads an output folder of `render` (lifecycle.jsonl, summary.json, frame-NNNNNN.png) and \
        writes one self-contained page beside them, to open in a browser from the folder or from \
        any static server: play and scrub the frames (←/→ a frame, shift a second, space), a lane \
        per player from play to stop with its events (click one to go to its frame), the players \
        alive against --max-alive (a live room's audio-only players apart, against --max-audio), the check's result, failures, first-frame times and stage \
        times. `render --report` writes the same page at the end of a render.
        """
    )

    @Argument(help: ArgumentHelp("An output folder of render.", valueName: "OUT_DIR"))
    var folder: String

    @Option(parsing: .unconditional, help: "The most players that may be alive at once (the check's bound and the line on the count).")
    var maxAlive = 2

    @Option(parsing: .unconditional, help: "The most audio-only players (a live room's participants) that may be alive at once. Default: no bound.")
    var maxAudio: Int?

    @Option(parsing: .unconditional, help: "Timeline frames per second. Default: summary.json's timeline_fps (30 when it has none).")
    var fps: Double?

    @Option(help: ArgumentHelp("The MP4 the page plays in its Clip tab. Default: the one .mp4 in OUT_DIR, if there is exactly one.",
                               valueName: "file.mp4"))
    var mp4: String?

    func validate() throws {
        guard maxAlive >= 1 else { throw ValidationError("--max-alive must be at least 1") }
        if let maxAudio, maxAudio < 0 { throw ValidationError("--max-audio must be 0 or more") }
        if let fps, !(fps > 0 && fps <= 240) { throw ValidationError("--fps must be more than 0 and at most 240") }
    }

    func run() throws {
        let signals = SignalEnd()
        defer { signals.cancel() }
        // A folder that is not a render's is a usage error (2); 1 is for a page that cannot be written.
        let page: ReportPage
        do {
            page = try ReportPage.load(folder: folder, fps: fps, clip: mp4, maxAlive: maxAlive, maxAudio: maxAudio)
        } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        do {
            print("wrote \(try page.write(toFolder: folder))")
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}
