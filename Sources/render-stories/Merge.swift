import ArgumentParser
import Foundation
import StoryPlayer

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join the output folders of a render's shards into one result.",
        discussion: """
        Each SHARD_DIR is the --output of `render --frames A..B`. The shards must cover every frame \
        of the render (each shard's summary.json says how many it has) without gaps or overlaps, in \
        any order; a missing range is named and refused. The frames are moved into DIR, and DIR gets one \
        lifecycle.jsonl and one summary.json equal to a whole render's (wall-clock times aside): each \
        shard's invented edge (it stops at its end the players that play on) is dropped, so the merged \
        trace passes plain `check`. With --allow-partial, shards that follow one another merge into one \
        shard of their frames (its summary.json says frame_range; check its trace with --shard), which \
        can be merged with the rest later. Exits 2 when the folders are not shards of one render or \
        leave frames out, 1 when DIR cannot be written.

        Example:
          render-stories render board.json --frames 0..45 --output out/a
          render-stories render board.json --frames 45..90 --output out/b
          render-stories merge out/a out/b --output out/board
        """
    )

    @Argument(help: ArgumentHelp("The shards' output folders.", valueName: "shard-dir"))
    var shards: [String] = []

    @Option(name: .shortAndLong, help: ArgumentHelp("The folder for the merged frames, trace and summary.", valueName: "dir"))
    var output: String

    @Flag(help: "Merge shards that cover only part of the render (one after another, no gaps) into one shard of those frames.")
    var allowPartial = false

    func validate() throws {
        guard !shards.isEmpty else { throw ValidationError("give at least one shard folder") }
    }

    func run() throws {
        let signals = SignalEnd()
        defer { signals.cancel() }
        do {
            let summary = try ShardMerge.merge(shards, into: output, allowPartial: allowPartial)
            if let range = summary.frameRange {
                print("merged \(shards.count) shards: \(summary.frames) frames, frame_range \(range.lowerBound)..\(range.upperBound) "
                      + "of \(summary.timelineFrames) on the timeline, into \(output)")
            } else {
                print("merged \(shards.count) shards: \(summary.frames) frames, \(summary.timelineFrames) on the timeline, into \(output)")
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode(error.code == .options ? 2 : 1)
        }
    }
}
