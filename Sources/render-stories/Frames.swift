import ArgumentParser
import StoryPlayer

struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print how many frames a render of the storyboard writes (for splitting it into shards); takes render's options.",
        discussion: """
        Without a duration in the storyboard this plays the navigation and lifecycle through to the end, \
        without decoding or drawing.

        Render's other options (--size, --output, --png-level, --mp4, …) are accepted and do not \
        change the count, so a script can pass both commands the same ones; only --fps and \
        --duration change it.

        With --shards N it prints the shards' frame ranges instead, one `A..B` a line for `render \
        --frames`: ceil(frames / N) frames each, the last shorter. With --shard I as well, only shard \
        I's range (I from 0), and nothing when the rounding of --whole-seconds left shard I empty. \
        Every runner splits by this command (scripts/render-sharded.sh, scripts/render-slurm.sh, \
        the Kubernetes Indexed Job). --keyframes then moves each cut a little, onto the keyframes \
        of the clips playing there, so that no shard decodes pictures it does not show; it opens \
        every source to read their indexes, so plan once and hand each shard its range, as \
        render-sharded.sh and render-slurm.sh do.

        Examples:
          render-stories frames board.json --size 540x960
          render-stories frames board.json --shards 8 --whole-seconds
          render-stories frames board.json --shards 8 --keyframes
          render-stories render board.json --frames "$(render-stories frames board.json --shards 8 --shard 3)" --output out/3
        """
    )

    @Argument(help: "The storyboard JSON file.")
    var storyboard: String

    @OptionGroup var parameters: ParameterArguments

    @OptionGroup var overrides: TimelineOverrides

    @Flag(help: "Print {\"frames\": N, \"fps\": F} instead of the number alone (with --shards: also \"ranges\": [[A, B], …]).")
    var json = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Print the frame ranges of N shards instead of the count.", valueName: "N"))
    var shards: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --shards: print only shard I's range (0 to N-1).", valueName: "I"))
    var shard: Int?

    @Flag(help: "With --shards: shards of whole seconds of frames (whole GOPs), so that their --mp4 segments join without re-encoding.")
    var wholeSeconds = false

    @Flag(help: ArgumentHelp(
        "With --shards: move each cut to the frame nearby where the clips playing there are on a keyframe, or nearest after one.",
        discussion: "A shard that begins inside a clip decodes forward from the keyframe before its first picture; a cut on the keyframes decodes nothing it does not show. The frames are the same either way. A cut moves by at most a second's frames and a quarter of a shard, whichever is less; with --whole-seconds in whole seconds, so only when shards are 4 s or longer. Clips whose container keeps no full index (MPEG-TS, Matroska) do not move it. Every shard must be cut with the same options."))
    var keyframes = false

    /// `render`'s other options (`--size`, `--png-level`, …), accepted so a script can pass the
    /// same options to both; only --fps and --duration change the count.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var renderOptions: [String] = []

    func validate() throws {
        if let shards, shards < 1 { throw ValidationError("--shards must be 1 or more") }
        if shards == nil, shard != nil || wholeSeconds || keyframes {
            throw ValidationError("--shard, --whole-seconds and --keyframes need --shards N")
        }
        if let shard, let shards, !(0..<shards).contains(shard) {
            throw ValidationError("--shard must be 0 to \(shards - 1) (shards count from 0)")
        }
    }

    func run() throws {
        let board = try Storyboard(contentsOf: storyboard, parameters: parameters.values).overriding(fps: overrides.fps, duration: overrides.duration)
        try board.checkFingersLift()
        let fps = board.canvas.fps
        let unit = wholeSeconds ? ShardSplit.gop(fps: fps) : 1
        let frames: Int
        var ranges: [Range<Int>]
        do {
            if let shards, keyframes {
                ranges = try ShardCuts.ranges(board, shards: shards, unit: unit)
                frames = ranges.last?.upperBound ?? 0
            } else {
                frames = try StoryRenderer.countFrames(board)
                ranges = shards.map { ShardSplit.ranges(frames: frames, shards: $0, unit: unit) } ?? []
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        guard shards != nil else {
            print(json ? "{\"frames\": \(frames), \"fps\": \(fps)}" : String(frames))
            return
        }
        if let shard { ranges = shard < ranges.count ? [ranges[shard]] : [] }
        if json {
            let list = ranges.map { "[\($0.lowerBound), \($0.upperBound)]" }.joined(separator: ", ")
            print("{\"frames\": \(frames), \"fps\": \(fps), \"ranges\": [\(list)]}")
        } else {
            for range in ranges { print("\(range.lowerBound)..\(range.upperBound)") }
        }
    }
}
