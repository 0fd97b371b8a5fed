import ArgumentParser
import StoryPlayer

struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print how many frames a render of the storyboard writes (for splitting it into shards).",
        discussion: "Without a duration in the storyboard this plays the navigation and lifecycle through to the end, without decoding or drawing."
    )

    @Argument(help: "The storyboard JSON file.")
    var storyboard: String

    @OptionGroup var overrides: TimelineOverrides

    func run() throws {
        let board = try Storyboard(contentsOf: storyboard).overriding(fps: overrides.fps, duration: overrides.duration)
        do {
            print(try StoryRender.countFrames(board))
        } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
    }
}
