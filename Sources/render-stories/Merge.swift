import ArgumentParser
import Foundation
import StoryPlayer

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join the output folders of a render's shards into one result.",
        discussion: """
        Each SHARD_DIR is the --output of `render --frames A..B`. The shards must cover the frames \
        from 0 without gaps or overlaps, in any order. The frames are moved into DIR, and DIR gets one \
        lifecycle.jsonl and one summary.json equal to a whole render's (wall-clock times aside): each \
        shard's invented edge (it stops at its end the players that play on) is dropped, so the merged \
        trace passes plain `check`. Exits 2 when the folders are not shards of one render, 1 when DIR \
        cannot be written.

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

    func validate() throws {
        guard !shards.isEmpty else { throw ValidationError("give at least one shard folder") }
    }

    func run() throws {
        do {
            let summary = try ShardMerge.merge(shards, into: output)
            print("merged \(shards.count) shards: \(summary.frames) frames, \(summary.timelineFrames) on the timeline, into \(output)")
        } catch {
            printError("error: \(error)")
            throw ExitCode(error.code == .options ? 2 : 1)
        }
    }
}
