import ArgumentParser
import StoryPlayer

struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print how many frames a render of the storyboard writes (for splitting it into shards); takes render's options.",
        discussion: "Without a duration in the storyboard this plays the navigation and lifecycle through to the end, without decoding or drawing."
    )

    @Argument(help: "The storyboard JSON file.")
    var storyboard: String

    @OptionGroup var overrides: TimelineOverrides

    @Flag(help: "Print {\"frames\": N, \"fps\": F} instead of the number alone.")
    var json = false

    /// `render`'s other options (`--size`, `--png-level`, …), accepted so a script can pass the
    /// same options to both; only --fps and --duration change the count.
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var renderOptions: [String] = []

    func run() throws {
        let board = try Storyboard(contentsOf: storyboard).overriding(fps: overrides.fps, duration: overrides.duration)
        do {
            let frames = try StoryRender.countFrames(board)
            print(json ? "{\"frames\": \(frames), \"fps\": \(board.canvas.fps)}" : String(frames))
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}
